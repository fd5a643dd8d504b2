package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// TestProcessLimit: a command that starts processes without end (the
// fork bomb the guard did not recognise, an approved script) stops at
// the sandbox's process limit, the default or the operator's, as root as
// well (this test runs as root, whom RLIMIT_NPROC would not bound).
func TestProcessLimit(t *testing.T) {
	f := newFixture(t)
	// Each sleep is a process; the subshell keeps going after a failed
	// fork; /proc is the sandbox's own, so it lists its processes only, and
	// a glob and echo are builtins (no fork is left to make).
	script := `(for i in $(seq 1300); do sleep 30 & done) 2>/dev/null; set -- /proc/[0-9]*; echo $#`
	for _, c := range []struct {
		name  string
		max   int
		limit int
	}{
		{"default", 0, sandbox.DefaultMaxProcs},
		{"operator's", 500, 500},
	} {
		for _, m := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
			p := f.policy(m)
			p.MaxProcs = c.max
			r := f.run(t, p, script)
			n, err := strconv.Atoi(strings.TrimSpace(r.stdout))
			if err != nil || n > c.limit || n < c.limit/2 {
				t.Errorf("%s limit, %s: %d processes at once (stdout %q, stderr %.200q); want at most %d and more than half of it", c.name, m, n, r.stdout, r.stderr, c.limit)
			}
		}
	}
}

// TestLeftoversEndWithTheCommand: what a command leaves running in the
// background ends with it (the sandbox's pid namespace ends with its
// init), instead of running on unwatched.
func TestLeftoversEndWithTheCommand(t *testing.T) {
	f := newFixture(t)
	r := f.run(t, f.policy(sandbox.WorkspaceWrite), `cp /bin/sleep ./leftover-3017 && (./leftover-3017 300 &) ; echo started`)
	if !strings.Contains(r.stdout, "started") {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, c := range procs {
		if b, err := os.ReadFile(c); err == nil && strings.TrimSpace(string(b)) == "leftover-3017" {
			t.Errorf("%s: a background process of the command still runs after it ended", filepath.Dir(c))
		}
	}
}

// TestTmpDirBounded: the private TMPDIR is a tmpfs of the policy's size
// in the sandbox's mount namespace: a command cannot write more than that
// into it, and nothing it writes there reaches the directory beneath.
func TestTmpDirBounded(t *testing.T) {
	f := newFixture(t)
	for _, m := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		p := f.policy(m)
		p.TmpMiB = 8
		r := f.run(t, p, `head -c 20971520 /dev/zero > "$TMPDIR/spill"; echo "rc=$?"; wc -c < "$TMPDIR/spill"`)
		if !strings.Contains(r.stdout, "rc=1") || !strings.Contains(r.stderr, "No space left") {
			t.Errorf("%s: a 20 MiB write into an 8 MiB TMPDIR: stdout %q stderr %q; want it to fail for space", m, r.stdout, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(f.tmp, "spill")); err == nil {
			t.Errorf("%s: the spill reached the tmp dir's own file system", m)
		}
	}
}

// TestInitPassesSignalsAndDeaths: the helper stands as the pid
// namespace's init, which cannot die of a signal itself: the launcher
// still sees a command killed by a signal as killed by it, and a signal
// sent to the helper reaches the command.
func TestInitPassesSignalsAndDeaths(t *testing.T) {
	f := newFixture(t)
	cmd := exec.Command("/bin/sh", "-c", "kill -TERM $$")
	cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
	if err := sandbox.Wrap(cmd, helperBin, f.policy(sandbox.WorkspaceWrite)); err != nil {
		t.Fatal(err)
	}
	err := cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("a command that killed itself with SIGTERM: %v (%v); want the launcher to see that signal", err, cmd.ProcessState)
	}

	cmd = exec.Command("/bin/sh", "-c", `trap 'echo got-term; exit 3' TERM; echo ready; sleep 20 & wait`)
	cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
	if err := sandbox.Wrap(cmd, helperBin, f.policy(sandbox.WorkspaceWrite)); err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var buf [6]byte
	if _, err := io.ReadFull(out, buf[:]); err != nil || string(buf[:]) != "ready\n" {
		t.Fatalf("read %q: %v", buf, err)
	}
	start := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(out)
	err = cmd.Wait()
	if !strings.Contains(string(rest), "got-term") || cmd.ProcessState.ExitCode() != 3 || time.Since(start) > 15*time.Second {
		t.Errorf("SIGTERM to the helper: output %q, %v; want the command's trap to run and exit 3", rest, err)
	}
}
