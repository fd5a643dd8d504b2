package main

import (
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// TestSignalAtAnyMomentOfTheStart: SIGTERM sent to a sandboxed command's
// launcher process at any moment of its start (at once, or after a delay
// of up to 24 ms in steps of 0.4 ms, which spans both stages' start) has
// the outcome of one sent while the command runs: the launcher sees the
// helper die of SIGTERM. The second stage is its pid namespace's init:
// before it catches its signals, a SIGTERM reaching it was dropped by the
// kernel (the command then ran on) or reached the Go runtime's default
// handler, which cannot kill an init and exits 2 (a tool's timeout
// reported "exit code: 2"). Sent to the launcher's pid (what exec.Cmd
// does) and to its process group (what the terminal's timeout does).
func TestSignalAtAnyMomentOfTheStart(t *testing.T) {
	f := newFixture(t)
	p := f.policy(sandbox.WorkspaceWrite)
	for _, to := range []string{"pid", "group"} {
		failures := 0
		for i := range 240 {
			delay := time.Duration(i%60) * 400 * time.Microsecond
			cmd := exec.Command("/bin/sh", "-c", "sleep 30 & sleep 30")
			cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := sandbox.Wrap(cmd, helperBin, p); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if delay > 0 {
				time.Sleep(delay)
			}
			if to == "group" {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			} else {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
			// A lost signal would leave the command 30 s to run: end it
			// sooner, and the outcome (SIGKILL) says so.
			lost := time.AfterFunc(15*time.Second, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			_ = cmd.Wait()
			lost.Stop()
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if ws.Signaled() && ws.Signal() == syscall.SIGTERM {
				continue
			}
			outcome := fmt.Sprintf("exit status %d", ws.ExitStatus())
			if ws.Signaled() {
				outcome = fmt.Sprintf("killed by signal %d", ws.Signal())
			}
			t.Errorf("SIGTERM to the launcher's %s %v after its start: %s; want it to die of SIGTERM", to, delay, outcome)
			if failures++; failures == 5 {
				t.FailNow()
			}
		}
	}
}

// TestGroupKillReachesTheCommandsProcesses: the helper's stages are in no
// process group of their launcher's, but a kill of the launcher's group
// (a tool's timeout) still reaches every process of the command's, as it
// did directly: the init passes it on to the command's group. The shell
// traps SIGTERM and then waits for its background sleep, which must have
// got it too.
func TestGroupKillReachesTheCommandsProcesses(t *testing.T) {
	f := newFixture(t)
	// "ready" only once the background sleep runs: a SIGTERM that comes
	// while its shell has forked and not yet executed sleep reaches the
	// shell's own trap in the child, and the sleep then runs on.
	cmd := exec.Command("/bin/sh", "-c", `trap 'echo got-term' TERM; sleep 30 & s=$!; until [ "$(cat /proc/$s/comm)" = sleep ]; do :; done; echo ready; wait $s; wait $s; echo "sleep: $?"`)
	cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	// Were the sleep spared, it would run for 30 s: end it sooner.
	spared := time.AfterFunc(15*time.Second, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	rest, _ := io.ReadAll(out)
	_ = cmd.Wait()
	spared.Stop()
	if got := string(rest); got != "got-term\nsleep: 143\n" {
		t.Errorf("SIGTERM to the launcher's group: the command printed %q; want its trap to run and its background sleep to die of SIGTERM (143)", got)
	}
}
