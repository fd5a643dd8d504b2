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

	p = f.policy(sandbox.WorkspaceWrite)
	p.Cwd = filepath.Join(f.ws, "docs")
	if out, code := start(p, `echo ran`); code != 125 || strings.Contains(out, "ran") {
		t.Errorf("Cwd another directory: exit %d, output %q; want the helper to refuse", code, out)
	}
	// Without Cwd the helper takes the directory it is in: its first stage
	// (--spawn) clones into the new mount namespace, which carries the
	// pinned directory over, so the masks hold there as well.
	p = f.policy(sandbox.WorkspaceWrite)
	p.Cwd = ""
	out, code = start(p, `pwd; echo pwn >> agent.yaml; cat .env; echo end`)
	if code != 0 || !strings.HasPrefix(out, f.ws+"\n") || strings.Contains(out, envSecret) {
		t.Fatalf("Cwd none: exit %d, output %q", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "agent.yaml")); strings.Contains(string(b), "pwn") {
		t.Fatal("Cwd none: a relative write reached the protected agent.yaml")
	}
}
