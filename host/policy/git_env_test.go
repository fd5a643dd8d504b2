package policy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/policy/shellguard"
)

// craftedKey is one way a repository's configuration makes git run a
// program: the config text (MARK is the marker script), an attributes
// line that selects a driver, an executable hook to plant, and what the
// runtime override can switch off.
type craftedKey struct {
	name   string
	config string
	attrs  string // .gitattributes
	hook   string // a hook file name planted in .git/hooks
	// fires are the commands that run the marker in an ordinary run:
	// proof that the fixture is live.
	fires []string
	// neutral says the run-time override (GuardedGitEnv) stops it; the
	// others are stopped only by the guard's review (and the sandbox).
	neutral bool
}

var craftedKeys = []craftedKey{
	{name: "core.fsmonitor", config: "[core]\n\tfsmonitor = MARK\n", fires: []string{"status", "diff"}, neutral: true},
	{name: "fsmonitor on the header line", config: "[core] fsmonitor = MARK\n", fires: []string{"status"}, neutral: true},
	{name: "old subsection form", config: "[core]\n[core.x]\n\tfoo = 1\n[CORE]\n\tFSMonitor = \"MARK\"\n", fires: []string{"status"}, neutral: true},
	{name: "post-index-change hook", hook: "post-index-change", fires: []string{"status"}, neutral: true},
	{name: "core.hooksPath", config: "[core]\n\thooksPath = HOOKS\n", fires: []string{"status"}, neutral: true},
	{name: "include.path", config: "[include]\n\tpath = evil.inc\n", fires: []string{"status"}, neutral: true},
	{name: "includeIf gitdir", config: "[includeIf \"gitdir:/\"]\n\tpath = evil.inc\n", fires: []string{"status"}, neutral: true},
	{name: "log.showSignature and gpg.program", config: "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = MARK\n", neutral: true},
	{name: "core.pager", config: "[core]\n\tpager = MARK\n", neutral: true},
	{name: "pager.log", config: "[pager]\n\tlog = MARK\n", neutral: true},
	{name: "core.sshCommand", config: "[core]\n\tsshCommand = MARK\n", neutral: true},
	{name: "core.editor", config: "[core]\n\teditor = MARK\n", neutral: true},
	{name: "sequence.editor", config: "[sequence]\n\teditor = MARK\n", neutral: true},
	{name: "credential.helper", config: "[credential]\n\thelper = !MARK\n", neutral: true},
	{name: "core.askPass", config: "[core]\n\taskPass = MARK\n", neutral: true},
	{name: "diff.external", config: "[diff]\n\texternal = MARK\n", fires: []string{"diff"}},
	{name: "diff driver command", config: "[diff \"x\"]\n\tcommand = MARK\n", attrs: "* diff=x\n", fires: []string{"diff"}},
	{name: "diff driver textconv", config: "[diff \"x\"]\n\ttextconv = MARK\n", attrs: "* diff=x\n", fires: []string{"diff", "show"}},
	{name: "filter clean", config: "[filter \"x\"]\n\tclean = MARK\n", attrs: "* filter=x\n", fires: []string{"diff"}},
	{name: "filter process", config: "[filter \"x\"]\n\tprocess = MARK\n", attrs: "* filter=x\n"},
	{name: "merge driver", config: "[merge \"x\"]\n\tdriver = MARK\n", attrs: "* merge=x\n"},
	{name: "alias", config: "[alias]\n\tst = !MARK\n"},
	{name: "interactive.diffFilter", config: "[interactive]\n\tdiffFilter = MARK\n"},
	{name: "uploadpack hook", config: "[uploadpack]\n\tpackObjectsHook = MARK\n"},
	{name: "receive hook", config: "[receive]\n\tprocReceiveRefs = refs\n"},
	{name: "status.submoduleSummary", config: "[status]\n\tsubmoduleSummary = true\n"},
	{name: "core.worktree", config: "[core]\n\tworktree = /\n"},
	{name: "core.attributesFile", config: "[core]\n\tattributesFile = /tmp/a\n"},
	{name: "extensions.partialClone", config: "[extensions]\n\tpartialClone = origin\n"},
	{name: "remote uploadpack", config: "[remote \"o\"]\n\turl = .\n\tuploadpack = MARK\n"},
	{name: "unparsable config", config: "[core\n\tfsmonitor = MARK\n"},
	{name: "continued value", config: "[core]\n\tfsmonitor = \\\nMARK\n", fires: []string{"status"}, neutral: true},
}

// gitFixture is a repository with one commit, a modified file and a
// marker script that records that it ran.
type gitFixture struct {
	ws, repo, marker, script string
	// touches moves same.txt's mtime on each staleIndex.
	touches *int
}

// staleIndex makes the next git status refresh and write the index (and
// so run a post-index-change hook): an unmodified tracked file whose stat
// data changed is brought up to date. Without it, whether status writes
// the index depends on what the runs before it left (a flake under load).
func (fx gitFixture) staleIndex(t *testing.T) {
	t.Helper()
	*fx.touches++
	at := time.Now().Add(time.Duration(10+*fx.touches) * time.Second)
	if err := os.Chtimes(filepath.Join(fx.repo, "same.txt"), at, at); err != nil {
		t.Fatal(err)
	}
}

func newGitFixture(t *testing.T, k craftedKey) gitFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fx := gitFixture{ws: filepath.Join(base, "ws"), marker: filepath.Join(base, "marker"), touches: new(int)}
	fx.repo = filepath.Join(fx.ws, "repo")
	fx.script = filepath.Join(base, "mark.sh")
	writeFile(t, fx.script, "#!/bin/sh\necho ran >> "+fx.marker+"\ncat >/dev/null 2>&1 </dev/null\nexit 0\n", 0o755)
	if err := os.MkdirAll(fx.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, fx.ws, nil, "init", "-q", "repo")
	writeFile(t, filepath.Join(fx.repo, "f.txt"), "one\n", 0o644)
	writeFile(t, filepath.Join(fx.repo, "same.txt"), "same\n", 0o644)
	git(t, fx.repo, nil, "add", "f.txt", "same.txt")
	git(t, fx.repo, nil, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one")
	writeFile(t, filepath.Join(fx.repo, "f.txt"), "one\ntwo\n", 0o644)
	// The stat data must look changed for status to refresh the index.
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(fx.repo, "f.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(base, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	hookBody := "#!/bin/sh\n" + fx.script + "\n"
	writeFile(t, filepath.Join(hooks, "post-index-change"), hookBody, 0o755)
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "MARK", fx.script)
		return strings.ReplaceAll(s, "HOOKS", hooks)
	}
	writeFile(t, filepath.Join(fx.repo, ".git", "evil.inc"), expand("[core]\n\tfsmonitor = MARK\n"), 0o644)
	if k.config != "" {
		f, err := os.OpenFile(filepath.Join(fx.repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(expand(k.config)); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if k.attrs != "" {
		writeFile(t, filepath.Join(fx.repo, ".git", "info", "attributes"), k.attrs, 0o644)
	}
	if k.hook != "" {
		writeFile(t, filepath.Join(fx.repo, ".git", "hooks", k.hook), hookBody, 0o755)
	}
	return fx
}

func writeFile(t *testing.T, p, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// baseGitEnv is a command environment as the host builds it: no GIT_*,
// a private HOME, no system configuration of the machine running the
// test.
func baseGitEnv(t *testing.T) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C"}
}

func git(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := runGit(t, dir, env, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func runGit(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	if env == nil {
		env = append(baseGitEnv(t), "GIT_CONFIG_NOSYSTEM=1")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, nil
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

var gitReadCommands = [][]string{{"status"}, {"diff"}, {"log", "-p"}, {"show"}}

// TestCraftedRepositories: for each program-running key, git status, diff,
// log and show are not allowed by the guard; where the run-time override
// can switch the key off, a run with GuardedGitEnv executes nothing, while
// an ordinary run of the same repository does (the fixture is live).
func TestCraftedRepositories(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("these tests need git on PATH")
	}
	for _, k := range craftedKeys {
		t.Run(k.name, func(t *testing.T) {
			fx := newGitFixture(t, k)
			for _, c := range gitReadCommands {
				cmd := "git " + strings.Join(c, " ")
				v := shellguard.Check(cmd, shellguard.Options{WorkspaceRoot: fx.ws, Cwd: fx.repo, Files: shellguard.OSFiles{}})
				if v.Decision == shellguard.Allow {
					t.Errorf("guard allows %q in a repository with %s", cmd, k.name)
				}
			}
			for _, c := range gitReadCommands {
				os.Remove(fx.marker)
				fx.staleIndex(t)
				env := GuardedGitEnv(baseGitEnv(t))
				out, _ := runGit(t, fx.repo, env, c...)
				if _, err := os.Stat(fx.marker); err == nil && k.neutral {
					t.Errorf("git %v with GuardedGitEnv ran the program of %s\n%s", c, k.name, out)
				}
			}
			for _, c := range gitReadCommands {
				if !contains(k.fires, c[0]) {
					continue
				}
				os.Remove(fx.marker)
				fx.staleIndex(t)
				out, _ := runGit(t, fx.repo, nil, c...)
				if _, err := os.Stat(fx.marker); err != nil {
					t.Errorf("fixture is dead: an ordinary git %v with %s ran nothing\n%s", c, k.name, out)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestPlainRepositoryAllowed: a repository made by git init and a commit
// lets the read-only commands run unasked, and they still work with
// GuardedGitEnv.
func TestPlainRepositoryAllowed(t *testing.T) {
	fx := newGitFixture(t, craftedKey{name: "plain"})
	// log -p and show print history's contents, which asks unless a
	// pathspec limits them (stop 51): here they are limited.
	plain := [][]string{{"status"}, {"diff"}, {"log", "-p", "--", "f.txt"}, {"show", "--", "f.txt"}, {"show", "--stat"},
		{"log", "--oneline"}, {"diff", "--stat"}}
	for _, c := range plain {
		cmd := "git " + strings.Join(c, " ")
		for _, cwd := range []string{fx.repo, filepath.Join(fx.repo, ".git")} {
			v := shellguard.Check(cmd, shellguard.Options{WorkspaceRoot: fx.ws, Cwd: cwd, Files: shellguard.OSFiles{}})
			if v.Decision != shellguard.Allow {
				t.Errorf("guard on %q in %s = %v %q, want allow", cmd, cwd, v.Decision, v.Reasons)
			}
		}
		out, err := runGit(t, fx.repo, GuardedGitEnv(baseGitEnv(t)), c...)
		if err != nil {
			t.Errorf("git %v with GuardedGitEnv failed: %v\n%s", c, err, out)
		}
	}
	out := git(t, fx.repo, GuardedGitEnv(baseGitEnv(t)), "diff")
	if !strings.Contains(out, "+two") {
		t.Errorf("git diff with GuardedGitEnv printed %q, want the change", out)
	}
}

// TestGuardedGitEnvReplacesGitVars: inherited GIT_* variables do not
// survive, and the overrides are counted right.
func TestGuardedGitEnvReplacesGitVars(t *testing.T) {
	env := GuardedGitEnv([]string{"PATH=/bin", "GIT_DIR=/elsewhere", "git_pager=x", "GIT_CONFIG_COUNT=99", "HOME=/h"})
	joined := strings.Join(env, "\n")
	for _, bad := range []string{"GIT_DIR=", "git_pager=", "GIT_CONFIG_COUNT=99"} {
		if strings.Contains(joined, bad) {
			t.Errorf("GuardedGitEnv kept %s: %q", bad, env)
		}
	}
	for _, want := range []string{"PATH=/bin", "HOME=/h", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_KEY_0=core.fsmonitor"} {
		if !contains(env, want) {
			t.Errorf("GuardedGitEnv lacks %s: %q", want, env)
		}
	}
}

// TestSubmoduleRunsNothing: git status in a repository with a populated
// submodule runs git in the submodule, whose own configuration (not
// named by the outer one) sets a filter; with GuardedGitEnv nothing runs.
func TestSubmoduleRunsNothing(t *testing.T) {
	fx := newGitFixture(t, craftedKey{name: "outer"})
	inner := filepath.Join(filepath.Dir(fx.ws), "inner")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, inner, nil, "init", "-q")
	writeFile(t, filepath.Join(inner, "g.txt"), "a\n", 0o644)
	git(t, inner, nil, "add", "g.txt")
	git(t, inner, nil, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "inner")
	git(t, fx.repo, nil, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "sub")
	git(t, fx.repo, nil, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "sub")
	git(t, fx.repo, nil, "config", "--remove-section", "submodule.sub")
	sub := filepath.Join(fx.repo, "sub")
	git(t, sub, nil, "config", "filter.x.clean", fx.script)
	modInfo := filepath.Join(fx.repo, ".git", "modules", "sub", "info", "attributes")
	writeFile(t, modInfo, "* filter=x\n", 0o644)
	dirty := func(n int) { // same size, new mtime: status must clean the file to compare
		at := time.Now().Add(time.Duration(n) * time.Second)
		if err := os.Chtimes(filepath.Join(sub, "g.txt"), at, at); err != nil {
			t.Fatal(err)
		}
		os.Remove(fx.marker)
	}
	dirty(3)
	runGit(t, fx.repo, nil, "status")
	if _, err := os.Stat(fx.marker); err != nil {
		t.Fatal("fixture is dead: an ordinary git status ran no filter in the submodule")
	}
	for i, c := range gitReadCommands {
		dirty(5 + i)
		out, _ := runGit(t, fx.repo, GuardedGitEnv(baseGitEnv(t)), c...)
		if _, err := os.Stat(fx.marker); err == nil {
			t.Errorf("git %v with GuardedGitEnv ran the submodule's filter\n%s", c, out)
		}
	}
}
