package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
	"demiurge.dev/shared/sandbox/sandboxtest"
)

// sandboxHelper is the real re-exec helper.
func sandboxHelper(t testing.TB) string { return sandboxtest.Helper(t) }

// TestRunUnderSandbox: a command given a read-only policy runs through the
// real helper: it prints, cannot write the workspace, and its result says
// which mode was enforced; without a policy the same write works.
func TestRunUnderSandbox(t *testing.T) {
	helper := sandboxHelper(t)
	ws, tmp := t.TempDir(), t.TempDir()
	pol := &sandbox.Policy{Mode: sandbox.ReadOnly, Workspace: ws, TmpDir: tmp}
	script := `echo hello; echo x > planted && echo wrote`

	res, rec := run(t, quickRunner(), Request{Command: script, Dir: ws, Sandbox: pol, SandboxHelper: helper})
	if res.Sandbox != "read-only" || !strings.Contains(rec.stream("stdout"), "hello") || strings.Contains(rec.stream("stdout"), "wrote") {
		t.Fatalf("sandboxed: mode %q stdout %q stderr %q", res.Sandbox, rec.stream("stdout"), rec.stream("stderr"))
	}
	if _, err := os.Stat(filepath.Join(ws, "planted")); err == nil {
		t.Fatal("a read-only command wrote the workspace")
	}

	res, rec = run(t, quickRunner(), Request{Command: script, Dir: ws})
	if res.Sandbox != "off" || !strings.Contains(rec.stream("stdout"), "wrote") {
		t.Fatalf("unsandboxed: mode %q stdout %q", res.Sandbox, rec.stream("stdout"))
	}
}

// TestSandboxFailsClosed: a policy that cannot be enforced (here: no
// helper) fails the start; the command never runs.
func TestSandboxFailsClosed(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	pol := &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws, TmpDir: tmp}
	req := Request{Command: "echo x > ran", Dir: ws, Env: testEnv(), ArtifactRoot: t.TempDir(), Emit: &recorder{}, Sandbox: pol, Timeout: 10 * time.Second}
	if _, err := quickRunner().Run(context.Background(), req); err == nil || !strings.Contains(err.Error(), "sandbox workspace-write") {
		t.Fatalf("Run without a helper: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Fatal("the command ran without its sandbox")
	}
}

// TestSandboxedCommandIsInTheSandboxsCwd: the runner pins the working
// directory by descriptor, which belongs to the launcher's mounts; the
// helper must enter the same directory in its own namespace, or relative
// names (cat .env) would read past the masks over sensitive files, and
// the shell could not even name its directory.
func TestSandboxedCommandIsInTheSandboxsCwd(t *testing.T) {
	helper := sandboxHelper(t)
	ws, tmp := t.TempDir(), t.TempDir()
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, ".env"), []byte("TOKEN=plain-words-nobody-flags\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pol := &sandbox.Policy{Mode: sandbox.ReadOnly, Workspace: ws, TmpDir: tmp}
	_, rec := run(t, quickRunner(), Request{Command: "pwd; cat .env", Dir: sub, Root: ws, Sandbox: pol, SandboxHelper: helper})
	if got := rec.stream("stdout"); !strings.HasPrefix(got, sub+"\n") || strings.Contains(got, "plain-words") {
		t.Fatalf("stdout %q (stderr %q): want the directory %s and no .env content", got, rec.stream("stderr"), sub)
	}
	if strings.Contains(rec.stream("stderr"), "getcwd") {
		t.Fatalf("the shell could not name its directory: %q", rec.stream("stderr"))
	}
}
