package shellguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoWorld lays out repositories by hand (no git needed): each case
// writes the files git's discovery and config loading would read.
func repoWorld(t *testing.T, files map[string]string) (ws string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(base, "ws")
	mkdir(t, ws)
	for name, data := range files {
		p := filepath.Join(base, name)
		mkdir(t, filepath.Dir(p))
		switch {
		case strings.HasPrefix(data, "->"):
			if err := os.Symlink(strings.TrimPrefix(data, "->"), p); err != nil {
				t.Fatal(err)
			}
		case data == "/":
			mkdir(t, p)
		default:
			mode := os.FileMode(0o644)
			if strings.HasPrefix(data, "#!") {
				mode = 0o755
			}
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(data, "BASE", base)), mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ws
}

const plainConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"

// bareLayout is what makes a directory a git directory.
func gitDirFiles(dir, config string) map[string]string {
	return map[string]string{dir + "/HEAD": "ref: refs/heads/main\n", dir + "/objects": "/", dir + "/refs": "/", dir + "/config": config}
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestRepoDiscovery: the guard finds the configuration git would read,
// however the repository is laid out, and judges it.
func TestRepoDiscovery(t *testing.T) {
	evil := "[core]\n\tfsmonitor = /bin/evil\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		cwd    string // relative to ws
		want   Decision
		reason string
	}{
		{"no repository", map[string]string{"ws/a.txt": "x"}, "", Allow, ""},
		{"plain", gitDirFiles("ws/.git", plainConfig), "", Allow, ""},
		{"plain, from a subdirectory", merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/src/x": "x"}), "src", Allow, ""},
		{"evil, from a subdirectory", merge(gitDirFiles("ws/.git", evil), map[string]string{"ws/src/x": "x"}), "src", Prompt, "core.fsmonitor"},
		{"evil above the workspace", merge(gitDirFiles(".git", evil), map[string]string{"ws/x": "x"}), "", Prompt, "core.fsmonitor"},
		{"nearest repository wins", merge(gitDirFiles(".git", evil), gitDirFiles("ws/.git", plainConfig)), "", Allow, ""},
		{".git file naming a directory", merge(gitDirFiles("store/r.git", evil), map[string]string{"ws/.git": "gitdir: ../store/r.git\n"}), "", Prompt, "core.fsmonitor"},
		{".git file, absolute", merge(gitDirFiles("store/r.git", evil), map[string]string{"ws/.git": "gitdir: BASE/store/r.git\n"}), "", Prompt, "core.fsmonitor"},
		{".git file without gitdir", map[string]string{"ws/.git": "hello\n"}, "", Prompt, "does not name a git directory"},
		{".git symlink", merge(gitDirFiles("store/r.git", evil), map[string]string{"ws/.git": "->../store/r.git"}), "", Prompt, "core.fsmonitor"},
		{"linked worktree: config in the common dir", merge(gitDirFiles("main/.git", evil), map[string]string{
			"main/.git/worktrees/w/HEAD": "x", "main/.git/worktrees/w/commondir": "../..\n", "ws/.git": "gitdir: BASE/main/.git/worktrees/w\n"}), "", Prompt, "core.fsmonitor"},
		{"linked worktree: config.worktree", merge(gitDirFiles("main/.git", plainConfig), map[string]string{
			"main/.git/worktrees/w/commondir": "../..\n", "main/.git/worktrees/w/config.worktree": evil, "ws/.git": "gitdir: BASE/main/.git/worktrees/w\n"}), "", Prompt, "core.fsmonitor"},
		{"cwd is a bare repository", gitDirFiles("ws/evil.git", evil), "evil.git", Prompt, "core.fsmonitor"},
		{"cwd inside a bare repository", merge(gitDirFiles("ws/evil.git", evil), map[string]string{"ws/evil.git/refs/heads/x": "x"}), "evil.git/refs", Prompt, "core.fsmonitor"},
		{"include relative to the config", merge(gitDirFiles("ws/.git", plainConfig+"[include]\n\tpath = more\n"), map[string]string{"ws/.git/more": evil}), "", Prompt, "core.fsmonitor"},
		{"include of a harmless file", merge(gitDirFiles("ws/.git", plainConfig+"[include]\n\tpath = more\n"), map[string]string{"ws/.git/more": "[user]\n\tname = x\n"}), "", Allow, ""},
		{"include, nested", merge(gitDirFiles("ws/.git", "[include]\n\tpath = a\n"), map[string]string{"ws/.git/a": "[include]\n\tpath = sub/b\n", "ws/.git/sub/b": evil}), "", Prompt, "core.fsmonitor"},
		{"include cycle", merge(gitDirFiles("ws/.git", "[include]\n\tpath = config\n"), nil), "", Prompt, "levels deep"},
		{"include missing", gitDirFiles("ws/.git", "[include]\n\tpath = nothere\n"), "", Prompt, "cannot be reviewed"},
		{"include from home", gitDirFiles("ws/.git", "[include]\n\tpath = ~/.gitconfig\n"), "", Prompt, "home directory"},
		{"includeIf", merge(gitDirFiles("ws/.git", "[includeIf \"onbranch:main\"]\n\tpath = x\n"), map[string]string{"ws/.git/x": evil}), "", Prompt, "core.fsmonitor"},
		{"oversized config", gitDirFiles("ws/.git", plainConfig+"#"+strings.Repeat("x", maxGitConfigBytes)+"\n"), "", Prompt, "larger"},
		{"config is a fifo-like non-file", merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/.git/config": "/"}), "", Prompt, "not a regular file"},
		{"unparsable", gitDirFiles("ws/.git", "[core\n"), "", Prompt, "cannot be read"},
		{"alternates", merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/.git/objects/info/alternates": "/home/u/secret/.git/objects\n"}), "", Prompt, "alternates"},
		{"hook", merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/.git/hooks/post-index-change": "#!/bin/sh\n"}), "", Prompt, "post-index-change"},
		{"hook not executable yet", merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/.git/hooks/post-checkout": "echo"}), "", Prompt, "post-checkout"},
		{"samples only", merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/.git/hooks/pre-commit.sample": "#!/bin/sh\n"}), "", Allow, ""},
		{"remotes and branches", gitDirFiles("ws/.git", plainConfig+"[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"), "", Allow, ""},
		{"remote uploadpack", gitDirFiles("ws/.git", "[remote \"origin\"]\n\turl = x\n\tuploadpack = /bin/evil\n"), "", Prompt, "remote.origin.uploadpack"},
		{"submodule", gitDirFiles("ws/.git", "[submodule \"s\"]\n\turl = x\n\tactive = true\n"), "", Prompt, "submodule.s.url"},
		{"alias", gitDirFiles("ws/.git", "[alias]\n\tst = !evil\n"), "", Prompt, "alias.st"},
		{"key on the header line", gitDirFiles("ws/.git", "[core] fsmonitor = /bin/evil\n"), "", Prompt, "core.fsmonitor"},
		{"case folded", gitDirFiles("ws/.git", "[CoRe]\n\tFsMonitor\n"), "", Prompt, "core.fsmonitor"},
		{"old subsection form", gitDirFiles("ws/.git", "[diff.x]\n\ttextconv = evil\n"), "", Prompt, "diff.x.textconv"},
		{"value with quotes and comment", gitDirFiles("ws/.git", "[user]\n\tname = \"a # b\" ; c\n"), "", Allow, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := repoWorld(t, tc.files)
			for _, cmd := range []string{"git status", "git diff", "git log", "git show --stat"} {
				v := Check(cmd, Options{WorkspaceRoot: ws, Cwd: filepath.Join(ws, tc.cwd), Files: OSFiles{}})
				if v.Decision != tc.want {
					t.Fatalf("Check(%q) = %v %q, want %v", cmd, v.Decision, v.Reasons, tc.want)
				}
				if tc.reason != "" && !strings.Contains(strings.Join(v.Reasons, "\n"), tc.reason) {
					t.Fatalf("Check(%q) reasons %q, want one naming %q", cmd, v.Reasons, tc.reason)
				}
			}
		})
	}
}

// TestGitVersionNeedsNoRepository: git --version and git version read no
// configuration.
func TestGitVersionNeedsNoRepository(t *testing.T) {
	ws := repoWorld(t, gitDirFiles("ws/.git", "[core]\n\tfsmonitor = evil\n"))
	for _, cmd := range []string{"git --version", "git version"} {
		if v := Check(cmd, Options{WorkspaceRoot: ws, Cwd: ws}); v.Decision != Allow {
			t.Errorf("Check(%q) = %v %q, want allow", cmd, v.Decision, v.Reasons)
		}
	}
}

func TestParseGitConfig(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // name=value;... or an error part
	}{
		{"[core]\n\tbare = false\n", "core.bare=false"},
		{"[core] bare = false", "core.bare=false"},
		{"[Remote \"Origin\"]\n\tURL = x\n", "remote.Origin.url=x"},
		{"[remote.Origin]\nurl=x", "remote.origin.url=x"},
		{"[s]\nk\n", "s.k="},
		{"[s]\nk = \"a\\\"b\" # c\n", "s.k=a\"b"},
		{"[s]\nk = a \\\n b\n", "s.k=a  b"},
		{"[s]\nk = one  two   \n", "s.k=one  two"},
		{"[s \"a\\\"b\"]\nk=1", "s.a\"b.k=1"},
		{"\ufeff[s]\nk=1", "s.k=1"},
		{"; c\n# c\n[s]\n\n  k=1 ; x\n", "s.k=1"},
		{"k = 1\n", "error: before any [section]"},
		{"[s\n", "error: line 1"},
		{"[s]\nk = \"open\n", "error: unterminated"},
		{"[s]\nk = a\\q\n", "error: unknown escape"},
		{"[s]\n1k = a\n", "error: unexpected"},
		{"[s]\nk x\n", "error: followed by"},
		{"[s \"x\" y]\n", "error: text after"},
		{"[]\n", "error: without a name"},
		{"[s]\nk=1\n\n1k = a\n", "error: line 4"},
		{"[r \"x", "error: an unterminated subsection"},
		{"[r \"x\\", "error: an unterminated subsection"},
		{"[s]\nk", "s.k="},                    // a key at the end, no newline
		{"[Zz09]\nz9Z0a = 1", "zz09.z9z0a=1"}, // letters and digits at the ends of their ranges
		{"[s]\nk = a\\", "error: ends in a backslash"},
		{"[s]\nk = a\\\nb\n1k\n", "error: line 4"}, // a continued line counts
	} {
		es, err := parseGitConfig(tc.src)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			var parts []string
			for _, e := range es {
				parts = append(parts, e.name()+"="+e.value)
			}
			got = strings.Join(parts, ";")
		}
		if strings.HasPrefix(tc.want, "error: ") {
			if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, strings.TrimPrefix(tc.want, "error: ")) {
				t.Errorf("parseGitConfig(%q) = %q, want %q", tc.src, got, tc.want)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("parseGitConfig(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// includeChain is a repository whose config includes inc1, inc1 inc2, and
// so on to incN, which sets a harmless key.
func includeChain(n int) map[string]string {
	files := gitDirFiles("ws/.git", "[include]\n\tpath = inc1\n")
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("ws/.git/inc%d", i)] = fmt.Sprintf("[include]\n\tpath = inc%d\n", i+1)
	}
	files[fmt.Sprintf("ws/.git/inc%d", n)] = "[user]\n\tname = deep\n"
	return files
}

// TestIncludeDepthAsGits: git follows 10 levels of includes below the
// config and refuses an 11th ("exceeded maximum include depth (10)",
// git 2.39); the guard reviews the same 10 and asks about an 11th.
func TestIncludeDepthAsGits(t *testing.T) {
	for n, want := range map[int]Decision{maxGitIncludes: Allow, maxGitIncludes + 1: Prompt} {
		ws := repoWorld(t, includeChain(n))
		v := Check("git status", Options{WorkspaceRoot: ws, Cwd: ws, Files: OSFiles{}})
		if v.Decision != want || want == Prompt && !strings.Contains(strings.Join(v.Reasons, "\n"), "levels deep") {
			t.Errorf("%d levels of includes: %v %q, want %v", n, v.Decision, v.Reasons, want)
		}
	}
}
