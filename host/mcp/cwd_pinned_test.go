package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The server's cwd is checked when the server is planned, and the
// operator is asked after that: a directory swapped for a symlink out of
// the workspace while the card is on the screen (a background command can
// do it) must not move the server. The start opens the checked path again
// without following any symlink, beneath the workspace, and starts the
// server in the directory it opened, by descriptor; a swapped path fails
// the connection and starts nothing.
func TestServerCwdSwappedAfterTheCheckStartsNothing(t *testing.T) {
	f := newFixture(t)
	sub := filepath.Join(f.ws.Root, "sub")
	outside := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	f.shellServer("echo", "pwd -P > "+marker+"; exec "+filepath.Join(f.bins, "echo"), "cwd: sub\n")
	f.ask.allow(ConnectTool("echo"))
	swapped := false
	f.ask.onAsk = func() { swapOnce(t, &swapped, sub, outside) }
	st := state(t, f.resolve(), "echo")
	if !swapped {
		t.Fatal("the operator was never asked: the test checks nothing")
	}
	if cwd, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the server started in %s after its cwd was swapped for a symlink to %s", strings.TrimSpace(string(cwd)), outside)
	}
	if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "changed after it was checked") {
		t.Fatalf("state = %+v, want failed: the cwd changed after it was checked", st)
	}
}

// A swap after the cwd was opened again, just before the start, cannot
// move the server either: it starts in the directory that was opened (by
// descriptor), wherever that directory now stands.
func TestServerStartsInThePinnedCwd(t *testing.T) {
	f := newFixture(t)
	sub := filepath.Join(f.ws.Root, "sub")
	outside := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	f.shellServer("echo", "pwd -P > "+marker+"; exec "+filepath.Join(f.bins, "echo"), "cwd: sub\n")
	f.ask.allow(ConnectTool("echo"))
	swapped := false
	testHookCwdPinned = func() { swapOnce(t, &swapped, sub, outside) }
	t.Cleanup(func() { testHookCwdPinned = nil })
	if st := state(t, f.resolve(), "echo"); st.Status != StatusConnected {
		t.Fatalf("state = %+v", st)
	}
	if !swapped {
		t.Fatal("the hook never ran: the test checks nothing")
	}
	cwd, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("never started: %v", err)
	}
	if got := strings.TrimSpace(string(cwd)); got != sub+".moved" {
		t.Fatalf("the server started in %s, want the pinned directory (now %s)", got, sub+".moved")
	}
}

// swapOnce moves dir aside and puts a symlink to target in its place, the
// first time it runs.
func swapOnce(t *testing.T, done *bool, dir, target string) {
	if *done {
		return
	}
	*done = true
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Error(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Error(err)
	}
}
