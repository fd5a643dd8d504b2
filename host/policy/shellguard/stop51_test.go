package shellguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a real repository in ws with files committed.
func gitRepo(t *testing.T, ws string, files map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for name, data := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, p, data)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

// TestGitPrintsCommittedCredentialsOnlyWhenAsked: a committed .env is
// printed by a commit's patch, a blob by id, a grep of the tracked files,
// a diff against a revision, though no path the command names is the
// .env (stop 51: git log -p, git show HEAD and git grep TOKEN printed it
// unasked). History is read unasked only when a pathspec limits it to
// plain files that are not credential-like; the index and the work tree
// when the index tracks no credential-like path. The everyday forms that
// print no contents stay unasked.
func TestGitPrintsCommittedCredentialsOnlyWhenAsked(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "ws")
	gitRepo(t, ws, map[string]string{".env": "TOKEN=s3cr3t\n", "a.txt": "hello TOKEN\n", "src/b.go": "package b\n"})
	opts := Options{WorkspaceRoot: ws, Cwd: ws, Files: OSFiles{}}
	checkAll(t, opts, map[string]Decision{
		"git log -p":                                     Prompt,
		"git log --patch -1":                             Prompt,
		"git log -U1":                                    Prompt,
		"git log -pw":                                    Prompt,
		"git whatchanged -p":                             Prompt,
		"git show":                                       Prompt,
		"git show HEAD":                                  Prompt,
		"git show --oneline":                             Prompt,
		"git show --stat abc1234":                        Prompt, // an object id may be a blob
		"git diff-tree -p HEAD":                          Prompt,
		"git grep TOKEN":                                 Prompt, // the index tracks .env
		"git grep TOKEN HEAD":                            Prompt,
		"git grep -e TOKEN HEAD -- a.txt":                Allow,
		"git grep --cached TOKEN":                        Prompt,
		"git diff":                                       Prompt, // the index tracks .env
		"git diff HEAD~1 HEAD":                           Prompt,
		"git diff --cached":                              Prompt,
		"git diff --check HEAD~1":                        Prompt, // prints each offending line
		"git diff --exit-code HEAD~1":                    Prompt,
		"git cat-file -p 1234abcd":                       Prompt,
		"git cat-file blob 1234abcd":                     Prompt,
		"git cat-file --batch-all-objects --batch":       Prompt,
		"git cat-file --batch":                           Prompt,
		"git stash show -p":                              Prompt,
		"git log -p -- src":                              Prompt, // a directory history may fill
		"git log -p -- '*.txt'":                          Prompt,
		"git log -p -- .ENV":                             Prompt,
		"git log -p -- a.txt":                            Allow,
		"git log -p a.txt":                               Allow,
		"git show HEAD -- a.txt src/b.go":                Allow,
		"git diff HEAD~1 -- a.txt":                       Allow,
		"git diff a.txt":                                 Allow,
		"git cat-file -p HEAD:a.txt":                     Allow,
		"git cat-file --batch-check --batch-all-objects": Allow,
		"git log --oneline":                              Allow,
		"git log --stat":                                 Allow,
		"git show --stat":                                Allow,
		"git show -s --format=%an HEAD":                  Allow,
		"git diff --stat":                                Allow,
		"git status":                                     Allow,
		"git ls-files":                                   Allow,
	})

	// An object named by its id may be the committed .env: git ls-tree
	// gives the id unasked, and grep searches a blob as a revision, git
	// config --blob prints one written as configuration.
	out, err := exec.Command("git", "-C", ws, "rev-parse", "HEAD:.env").Output()
	if err != nil {
		t.Fatal(err)
	}
	blob := strings.TrimSpace(string(out))
	checkAll(t, opts, map[string]Decision{
		"git grep TOKEN " + blob + " -- a.txt":  Prompt,
		"git cat-file blob " + blob:             Prompt, // the type first, then an id
		"git cat-file blob HEAD:a.txt":          Allow,
		"git config --blob " + blob + " --list": Prompt,
		"git config --blob HEAD:.env --list":    Prompt,
		"git config --blob HEAD:a.txt --list":   Allow,
		"git config --blob=" + blob + " --list": Prompt, // attached: the same
		"git config --blob=HEAD:.env --list":    Prompt,
		"git config --blob=HEAD:a.txt --list":   Allow,
		"git config --blob HEAD: --list":        Prompt, // a revision and no path
		"git config --blob :.env --list":        Prompt, // the index's copy
		"git grep TOKEN HEAD -- a.txt":          Allow,
	})

	// A repository that tracks no credential: its diff and grep stay
	// unasked, an ignored .env beside them or not.
	clean := filepath.Join(base, "clean")
	gitRepo(t, clean, map[string]string{".gitignore": ".env\n", "a.txt": "hello\n"})
	write(t, filepath.Join(clean, ".env"), "TOKEN=x\n")
	write(t, filepath.Join(clean, "a.txt"), "changed\n")
	checkAll(t, Options{WorkspaceRoot: clean, Cwd: clean, Files: OSFiles{}}, map[string]Decision{
		"git diff":          Allow,
		"git diff --cached": Allow,
		"git grep hello":    Allow,
		"git log --oneline": Allow,
		"git log -p":        Prompt, // history is not read
	})
}

// TestGitIndexPathsReadsEveryVersion: the index reader agrees with git
// ls-files for index versions 2, 3 (an intent-to-add entry) and 4 (names
// compressed against the previous one), and refuses what it cannot read.
func TestGitIndexPathsReadsEveryVersion(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "ws")
	gitRepo(t, ws, map[string]string{"a.txt": "a", "dir/sub/b.txt": "b", "dir/sub/c.txt": "c", "z/.env": "K=v"})
	g := &guard{files: OSFiles{}, cwd: ws}
	for _, v := range []string{"2", "3", "4"} {
		run := func(args ...string) string {
			cmd := exec.Command("git", args...)
			cmd.Dir = ws
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("git %v: %v", args, err)
			}
			return string(out)
		}
		run("update-index", "--index-version", v)
		if v == "3" {
			write(t, filepath.Join(ws, "new.txt"), "n")
			run("add", "-N", "new.txt")
		}
		names, err := g.gitIndexPaths(filepath.Join(ws, ".git/index"))
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		if got, want := strings.Join(names, "\n")+"\n", run("ls-files"); got != want {
			t.Errorf("version %s: read %q, git ls-files %q", v, got, want)
		}
	}
	write(t, filepath.Join(ws, ".git/index"), "DIRC\x00\x00\x00\x02\x00\x00\x00\x05short")
	if _, err := g.gitIndexPaths(filepath.Join(ws, ".git/index")); err == nil {
		t.Error("a truncated index was read")
	}
}
