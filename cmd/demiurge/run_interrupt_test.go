package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/providers/providertest"
)

// captureOutput points os.Stdout and os.Stderr at files for fn (run
// builds its app over them) and returns what was written.
func captureOutput(t *testing.T, fn func()) (stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = out, errf
	defer func() { os.Stdout, os.Stderr = oldOut, oldErr }()
	fn()
	o, _ := os.ReadFile(out.Name())
	e, _ := os.ReadFile(errf.Name())
	return string(o), string(e)
}

// SIGINT while the model streams cancels the turn: exit 130, no
// "context canceled" line, the turn recorded as cancelled, and the
// session usable by the next run.
func TestRunInterruptedExits130(t *testing.T) {
	// run's errors exit through urfave/cli's OsExiter: keep this process.
	oldExiter := cli.OsExiter
	cli.OsExiter = func(int) {}
	defer func() { cli.OsExiter = oldExiter }()
	builtin, _ := testPlugins(t)
	state := t.TempDir()
	t.Setenv("DEMIURGE_PLUGIN_DIR", builtin)
	t.Setenv("DEMIURGE_STATE", state)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{Text: []string{"Let me ", "think", " for a long time"}, ChunkDelayMS: 60_000},
		{Text: []string{"Back again."}},
	})
	defer srv.Close()
	args := []string{"demiurge", "--workspace", t.TempDir(), "--model", "anthropic:claude-test", "--base-url", srv.URL}
	sent := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for len(srv.Requests()) == 0 {
			if time.Now().After(deadline) {
				sent <- os.ErrDeadlineExceeded
				return
			}
			time.Sleep(10 * time.Millisecond) // polling the server's request count
		}
		sent <- syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	var code int
	stdout, stderr := captureOutput(t, func() { code = run(append(args, "run", "think hard")) })
	if err := <-sent; err != nil {
		t.Fatalf("no SIGINT sent: %v", err)
	}
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	if strings.Contains(stderr, "context canceled") || !strings.Contains(stderr, "turn cancelled") {
		t.Fatalf("stderr:\n%s", stderr)
	}
	if strings.Contains(stdout, "context canceled") {
		t.Fatalf("stdout = %q", stdout)
	}
	stdout, stderr = captureOutput(t, func() { code = run(append(args, "sessions", "resume", "last", "go on")) })
	if code != 0 || !strings.Contains(stdout, "Back again.") {
		t.Fatalf("resume after the cancel: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	stdout, _ = captureOutput(t, func() { code = run([]string{"demiurge", "sessions", "show", "last"}) })
	if code != 0 || !strings.Contains(stdout, "(the operator cancelled this turn)\nyou: go on") || !strings.Contains(stdout, "you: go on") {
		t.Fatalf("sessions show = %d\n%s", code, stdout)
	}
}

// SIGTERM while the model streams ends run with 143 (128 + SIGTERM), as
// the README says, the turn recorded as cancelled.
func TestRunTerminatedExits143(t *testing.T) {
	oldExiter := cli.OsExiter
	cli.OsExiter = func(int) {}
	defer func() { cli.OsExiter = oldExiter }()
	builtin, _ := testPlugins(t)
	t.Setenv("DEMIURGE_PLUGIN_DIR", builtin)
	t.Setenv("DEMIURGE_STATE", t.TempDir())
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0123456789")
	srv := providertest.NewServer("anthropic", []providertest.Step{{Text: []string{"Let me ", "think"}, ChunkDelayMS: 60_000}})
	defer srv.Close()
	sent := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for len(srv.Requests()) == 0 {
			if time.Now().After(deadline) {
				sent <- os.ErrDeadlineExceeded
				return
			}
			time.Sleep(10 * time.Millisecond) // polling the server's request count
		}
		sent <- syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
	var code int
	_, stderr := captureOutput(t, func() {
		code = run([]string{"demiurge", "--workspace", t.TempDir(), "--model", "anthropic:claude-test", "--base-url", srv.URL, "run", "think hard"})
	})
	if err := <-sent; err != nil {
		t.Fatalf("no SIGTERM sent: %v", err)
	}
	if code != exitTerminated || !strings.Contains(stderr, "turn cancelled") || strings.Contains(stderr, "context canceled") {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitTerminated, stderr)
	}
}
