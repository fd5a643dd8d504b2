package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptExitStatus interrupts a real one-shot call while its
// command runs: the exit status is 128+signal, the command's process is
// gone, and no "context canceled" line reaches the operator.
func TestInterruptExitStatus(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			ws := t.TempDir()
			cmd := exec.Command(bin, "--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", ws,
				"--approve", "allow:terminal", "tools", "call", "terminal", `{"command":"touch started && sleep 60"}`)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			waitForFile(t, filepath.Join(ws, "started"), 30*time.Second)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("demiurge still runs 30s after %v; stderr:\n%s", tc.sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.want {
				t.Fatalf("after %v: %v, want exit status %d; stderr:\n%s", tc.sig, err, tc.want, stderr.String())
			}
			if strings.Contains(stderr.String(), "context canceled") {
				t.Errorf("stderr has a context canceled line:\n%s", stderr.String())
			}
		})
	}
}

// waitForFile waits for path to exist, failing the test at the deadline.
func waitForFile(t *testing.T, path string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !fileExists(path) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %v", path, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
