package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSystemdUnit: the example user unit (docs/demiurge-host.service)
// passes `systemd-analyze verify --user` with nothing to say, where %h is
// a home whose ~/.local/bin/demiurge is the real binary; and its ExecStart
// line, run as systemd would run it, starts a host in the foreground that
// front ends reach and that the unit's KillSignal (SIGTERM) ends cleanly
// within its TimeoutStopSec.
func TestSystemdUnit(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian package systemd), so the unit is not verified")
	}
	unitText, err := os.ReadFile("../../docs/demiurge-host.service")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, d := range []string{".local/bin", "work"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(demiurgeBinary(t), filepath.Join(home, ".local/bin/demiurge")); err != nil {
		t.Fatal(err)
	}
	runtimeDir := t.TempDir()
	unit := filepath.Join(t.TempDir(), "demiurge-host.service")
	if err := os.WriteFile(unit, unitText, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + runtimeDir, "PATH=" + os.Getenv("PATH")}
	verify := exec.Command(tool, "verify", "--user", unit)
	verify.Env = env
	if out, err := verify.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("systemd-analyze verify --user %s: %v\n%s", unit, err, out)
	}

	// ExecStart as systemd runs it: %h is the home, no shell.
	var argv []string
	for _, line := range strings.Split(string(unitText), "\n") {
		if rest, ok := strings.CutPrefix(line, "ExecStart="); ok {
			argv = strings.Fields(strings.ReplaceAll(rest, "%h", home))
		}
	}
	if len(argv) == 0 {
		t.Fatal("the unit has no ExecStart line")
	}
	host := exec.Command(argv[0], argv[1:]...)
	host.Env = env
	var logs strings.Builder
	host.Stdout, host.Stderr = &logs, &logs
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- host.Wait() }()
	ended := false
	defer func() {
		if !ended {
			host.Process.Kill()
			<-done
		}
	}()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		status := exec.Command(argv[0], "--workspace", filepath.Join(home, "work"), "host", "status")
		status.Env = append(env, "DEMIURGE_HOST=on")
		out, err := status.CombinedOutput()
		if err == nil && strings.Contains(string(out), "pid") {
			break
		}
		select {
		case err := <-done:
			ended = true
			t.Fatalf("the unit's host ended before it answered: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the unit's host did not answer host status: %v\n%s\nhost:\n%s", err, out, logs.String())
		}
	}
	host.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		ended = true
		if err != nil {
			t.Fatalf("the unit's host ended on SIGTERM with %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second): // the unit's TimeoutStopSec
		t.Fatalf("the unit's host was still running 30s after SIGTERM\n%s", logs.String())
	}
}
