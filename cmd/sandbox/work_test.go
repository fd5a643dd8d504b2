package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// TestWorkInsideWorkspaceWrite: the sandbox must not stop real work: a Go
// build of a module in the workspace, git status, and a git commit.
func TestWorkInsideWorkspaceWrite(t *testing.T) {
	f := newFixture(t)
	p := f.policy(sandbox.WorkspaceWrite)
	for _, c := range []struct{ name, script, want string }{
		{"go build", `go build -o ./hello . && ./hello 2>&1`, "built"},
		{"git status", `git status --porcelain`, "?? main.go"},
		{"git commit", `git add main.go go.mod && git commit -qm first && git log --oneline | wc -l`, "1"},
		{"private tmp dir", `echo t > "$TMPDIR/t" && cat "$TMPDIR/t"`, "t"},
	} {
		r := f.run(t, p, c.script)
		if r.exit != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("%s: exit %d, stdout %q (want %q), stderr %s", c.name, r.exit, r.stdout, c.want, r.stderr)
		}
	}
}

// TestReadOnlyReadsAndUsesTmp: read-only mode still runs programs, reads
// the workspace, and writes its private tmp dir.
func TestReadOnlyReadsAndUsesTmp(t *testing.T) {
	f := newFixture(t)
	r := f.run(t, f.policy(sandbox.ReadOnly), `cat docs/readme.md && git status --porcelain >/dev/null && echo ok > "$TMPDIR/x" && cat "$TMPDIR/x"`)
	if r.exit != 0 || !strings.Contains(r.stdout, "hello") || !strings.Contains(r.stdout, "ok") {
		t.Fatalf("exit %d stdout %q stderr %s", r.exit, r.stdout, r.stderr)
	}
}

// TestHelperFailsClosed: every way the helper cannot confine ends with
// exit 125 and a message, and the command never runs.
func TestHelperFailsClosed(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(f.outside, "ran")
	script := "touch " + marker
	wrapped := func(helper string, p sandbox.Policy) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
		if err := sandbox.Wrap(cmd, helper, p); err != nil {
			t.Fatalf("wrap: %v", err)
		}
		return cmd
	}
	missingCore := f.policy(sandbox.WorkspaceWrite)
	missingCore.Protected = append(missingCore.Protected, filepath.Join(f.ws, "newcore.yaml"))
	symlinked := f.policy(sandbox.WorkspaceWrite)
	if err := os.Symlink("agent.yaml", filepath.Join(f.ws, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	symlinked.Protected = append(symlinked.Protected, filepath.Join(f.ws, "linked.yaml"))
	enc, err := f.policy(sandbox.ReadOnly).Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cmd  *exec.Cmd
		want string
	}{
		{"kernel lacks landlock (test build)", wrapped(helperNoLandlockBin, f.policy(sandbox.WorkspaceWrite)), "landlock filesystem rules"},
		{"started without namespaces", exec.Command(helperBin, "--policy", enc, "--", "/bin/sh", "-c", script), "private mount namespace"},
		{"policy with an unknown field", exec.Command(helperBin, "--policy", `{"mode":"read-only","workspace":"/","tmp_dir":"/tmp","allow_all":true}`, "--", "/bin/sh", "-c", script), "unknown field"},
		{"unknown mode", exec.Command(helperBin, "--policy", `{"mode":"lax","workspace":"/","tmp_dir":"/tmp"}`, "--", "/bin/sh", "-c", script), "unknown mode"},
		{"missing protected path under the workspace", wrapped(helperBin, missingCore), "cannot be held read-only"},
		{"symlinked protected path", wrapped(helperBin, symlinked), "is a symlink"},
		{"no command", exec.Command(helperBin, "--policy", enc), "usage"},
		{"maps ids outside a new user namespace", exec.Command(helperBin, "--map", "0", "0", "--policy", enc, "--", "/bin/sh", "-c", script), "map the launcher's uid and gid"},
	} {
		out, err := c.cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errorsAs(err, &ee) || ee.ExitCode() != exitCannotSandbox || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: err %v, output %q; want exit %d naming %q", c.name, err, out, exitCannotSandbox, c.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the command ran", c.name)
		}
	}
}

// TestStatusOfTestBuildLacksLandlock: the test-only build reports no
// Landlock, and names why; the real build reports this kernel's ABI.
func TestStatusOfTestBuildLacksLandlock(t *testing.T) {
	for _, c := range []struct {
		bin  string
		want string
	}{
		{helperNoLandlockBin, `"landlock_abi":0`},
		{helperNoLandlockBin, `demiurge_nolandlock`},
		{helperBin, `"fs_write":true`},
	} {
		out, err := exec.Command(c.bin, "--status").Output()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s --status: %v %s; want %s", c.bin, err, out, c.want)
		}
	}
}
