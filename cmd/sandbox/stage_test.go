package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// TestKilledFirstStageEndsTheCommand: SIGKILL to the process the launcher
// started (the first stage, which cannot pass it on) still ends the
// command and everything in its sandbox: the second stage dies with its
// parent (Pdeathsig) and takes its pid namespace with it. The command's
// stdout reaching EOF shows that no process holding it is left.
func TestKilledFirstStageEndsTheCommand(t *testing.T) {
	f := newFixture(t)
	cmd := exec.Command("/bin/sh", "-c", "echo ready; sleep 30 & sleep 30")
	cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
	if err := sandbox.Wrap(cmd, helperBin, f.policy(sandbox.WorkspaceWrite)); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var buf [6]byte
	if _, err := io.ReadFull(out, buf[:]); err != nil || string(buf[:]) != "ready\n" {
		t.Fatalf("read %q: %v", buf, err)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	eof := make(chan error, 1)
	go func() { _, err := io.ReadAll(out); eof <- err }()
	select {
	case <-eof:
	case <-time.After(15 * time.Second):
		t.Fatal("the command still holds its stdout 15 s after its first stage was killed")
	}
	_ = cmd.Wait()
}

// TestWrapStartsTheSmallFirstStage: beside the helper (as make build and
// these tests place it) the first stage is its own small binary, which
// starts the helper's second stage; with none beside it the helper runs
// the first stage itself (--spawn). Both run the command.
func TestWrapStartsTheSmallFirstStage(t *testing.T) {
	f := newFixture(t)
	alone := filepath.Join(t.TempDir(), "demiurge-sandbox")
	bin, err := os.ReadFile(helperBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ helper, path, arg1 string }{
		{helperBin, filepath.Join(filepath.Dir(helperBin), sandbox.FirstStageName), helperBin},
		{alone, alone, "--spawn"},
	} {
		cmd := exec.Command("/bin/echo", "ran")
		cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
		if err := sandbox.Wrap(cmd, c.helper, f.policy(sandbox.ReadOnly)); err != nil {
			t.Fatal(err)
		}
		if cmd.Path != c.path || cmd.Args[1] != c.arg1 {
			t.Errorf("helper %s: starts %s %q, want %s %s", c.helper, cmd.Path, cmd.Args[:2], c.path, c.arg1)
		}
		if out, err := cmd.Output(); err != nil || string(out) != "ran\n" {
			t.Errorf("helper %s: %q, %v", c.helper, out, err)
		}
	}
}
