package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// TestDescriptorPinnedCwd: a launcher that starts the command in a
// directory it holds open (chdir to /proc/self/fd/N, as the terminal
// does) gets the protected and masking mounts for relative paths too;
// a Cwd naming another directory than the pinned one, or none at all,
// refuses to start.
func TestDescriptorPinnedCwd(t *testing.T) {
	f := newFixture(t)
	dir, err := os.Open(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	start := func(p sandbox.Policy, script string) (string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
		cmd.Dir = "/proc/self/fd/" + strconv.Itoa(int(dir.Fd()))
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + f.home}
		if err := sandbox.Wrap(cmd, helperBin, p); err != nil {
			t.Fatalf("wrap: %v", err)
		}
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("%q did not finish within the deadline", script)
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		return string(out), 0
	}
	p := f.policy(sandbox.WorkspaceWrite)
	p.Cwd = f.ws
	out, code := start(p, `echo pwn >> agent.yaml; cat .env; cat sub/.env.local; echo end`)
	if code != 0 || !strings.Contains(out, "end") || strings.Contains(out, envSecret) {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "agent.yaml")); strings.Contains(string(b), "pwn") {
		t.Fatal("a relative write from a descriptor-pinned cwd reached the protected agent.yaml")
	}

	for name, cwd := range map[string]string{"another directory": filepath.Join(f.ws, "docs"), "none": ""} {
		p := f.policy(sandbox.WorkspaceWrite)
		p.Cwd = cwd
		out, code := start(p, `echo ran`)
		if code != 125 || strings.Contains(out, "ran") {
			t.Errorf("Cwd %s: exit %d, output %q; want the helper to refuse", name, code, out)
		}
	}
}
