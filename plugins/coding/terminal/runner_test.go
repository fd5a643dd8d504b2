package terminal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunEchoAndExitCodes(t *testing.T) {
	cases := []struct {
		name, command  string
		code           int
		reason         string
		stdout, stderr string
		chars          int64
	}{
		{"echo", "echo hi", 0, ReasonExited, "hi\n", "", 3},
		{"exit code", "echo out; echo err >&2; exit 3", 3, ReasonExited, "out\n", "err\n", 4},
		{"multibyte", "printf '密码\\n'", 0, ReasonExited, "密码\n", "", 3},
		{"signaled", "kill -9 $$", -1, ReasonSignaled, "", "", 0},
		{"no output", "true", 0, ReasonExited, "", "", 0},
		{"stdin is empty", "cat; echo end", 0, ReasonExited, "end\n", "", 4},
	}
	rn := quickRunner()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			res, rec := run(t, rn, Request{Command: tc.command, ArtifactRoot: root})
			if res.ExitCode != tc.code || res.ExitReason != tc.reason {
				t.Fatalf("exit %d %s, want %d %s", res.ExitCode, res.ExitReason, tc.code, tc.reason)
			}
			if res.Stdout.Tail != tc.stdout || res.Stderr.Tail != tc.stderr {
				t.Fatalf("tails %q %q, want %q %q", res.Stdout.Tail, res.Stderr.Tail, tc.stdout, tc.stderr)
			}
			if res.Stdout.Chars+res.Stderr.Chars != tc.chars+int64(len(tc.stderr)) && tc.stderr == "" {
				t.Fatalf("stdout chars %d, want %d", res.Stdout.Chars, tc.chars)
			}
			if got := readArtifact(t, root, res.Stdout.Artifact); got != tc.stdout {
				t.Fatalf("stdout artifact %q, want %q", got, tc.stdout)
			}
			if got := readArtifact(t, root, res.Stderr.Artifact); got != tc.stderr {
				t.Fatalf("stderr artifact %q, want %q", got, tc.stderr)
			}
			if rec.stream("stdout") != tc.stdout || rec.stream("stderr") != tc.stderr {
				t.Fatalf("chunks %q %q", rec.stream("stdout"), rec.stream("stderr"))
			}
			if len(rec.artifacts) != 2 {
				t.Fatalf("artifact refs %v, want two", rec.artifacts)
			}
			for _, a := range rec.artifacts {
				if !strings.HasPrefix(a, root+string(filepath.Separator)) {
					t.Fatalf("artifact ref %s is not under the root %s", a, root)
				}
			}
			if res.Spawn.PID <= 0 || res.Spawn.PGID != res.Spawn.PID || res.Spawn.StartMarker == "" ||
				!strings.HasPrefix(res.Spawn.SpawnID, "sp_") || res.Spawn.Shell == "" {
				t.Fatalf("spawn record incomplete: %+v", res.Spawn)
			}
			if rn.Live() != 0 {
				t.Fatalf("%d commands still live", rn.Live())
			}
		})
	}
}

func TestRunUsesOnlyTheGivenEnvironment(t *testing.T) {
	t.Setenv("TERMINAL_TEST_LEAK", "from-the-plugin")
	res, _ := run(t, quickRunner(), Request{Command: "echo \"[$TERMINAL_TEST_LEAK][$ONLY]\"", Env: testEnv("ONLY=given")})
	if res.Stdout.Tail != "[][given]\n" {
		t.Fatalf("child saw %q; want only the given environment", res.Stdout.Tail)
	}
}

func TestRunInDir(t *testing.T) {
	dir := t.TempDir()
	res, _ := run(t, quickRunner(), Request{Command: "pwd", Dir: dir})
	if strings.TrimSpace(res.Stdout.Tail) != dir {
		t.Fatalf("pwd %q, want %q", res.Stdout.Tail, dir)
	}
}

func TestRunStartFailures(t *testing.T) {
	rn := quickRunner()
	ctx := context.Background()
	root := t.TempDir()
	if _, err := rn.Run(ctx, Request{Command: "true", Env: testEnv(), Dir: "/nonexistent-dir-xyz", ArtifactRoot: root, Timeout: time.Second}); err == nil {
		t.Fatal("a missing cwd started a command")
	}
	if ents, _ := os.ReadDir(filepath.Join(root, "terminal")); len(ents) != 0 {
		t.Fatalf("a command that never started left artifacts: %v", ents)
	}
	if _, err := rn.Run(ctx, Request{Command: "true", Env: testEnv(), Dir: t.TempDir(), ArtifactRoot: t.TempDir()}); err == nil {
		t.Fatal("a zero timeout started a command")
	}
	rn.Shutdown()
	if _, err := rn.Run(ctx, Request{Command: "true", Env: testEnv(), Dir: t.TempDir(), ArtifactRoot: t.TempDir(), Timeout: time.Second}); !errors.Is(err, ErrShuttingDown) {
		t.Fatalf("Run after Shutdown: %v, want ErrShuttingDown", err)
	}
}

// treeCommand forks grandchildren: a sleep that ignores TERM (an ignored
// signal stays ignored across exec), a plain sleep, and a subshell with a
// child of its own; it says when all are started.
const treeCommand = `sh -c 'trap "" TERM; exec sleep 60' & sleep 60 & (sleep 60; echo never) & echo started; wait`

func TestTimeoutEndsTheWholeTree(t *testing.T) {
	rn := quickRunner()
	start := time.Now()
	res, _ := run(t, rn, Request{Command: treeCommand, Timeout: 1500 * time.Millisecond})
	if res.ExitReason != ReasonTimeout {
		t.Fatalf("exit reason %s, want timeout", res.ExitReason)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v; TERM, grace and KILL should take well under a second", d)
	}
	if !groupGone(t, res.Spawn.PGID) {
		t.Fatalf("processes of group %d survived: %v", res.Spawn.PGID, pidsInGroup(t, res.Spawn.PGID))
	}
	if res.Stdout.Tail != "started\n" {
		t.Fatalf("stdout %q", res.Stdout.Tail)
	}
}

func TestCancelEndsTheTree(t *testing.T) {
	rn := quickRunner()
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{}
	done := make(chan *Result)
	go func() {
		res, err := rn.Run(ctx, Request{Command: treeCommand, Env: testEnv(), Dir: t.TempDir(), ArtifactRoot: t.TempDir(), Timeout: time.Minute, Emit: rec})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	waitFor(t, func() bool { return rec.stream("stdout") != "" })
	cancel()
	res := <-done
	if res.ExitReason != ReasonCancelled || !groupGone(t, res.Spawn.PGID) {
		t.Fatalf("reason %s, group left %v", res.ExitReason, pidsInGroup(t, res.Spawn.PGID))
	}
}

func TestExpiryEndsTheTree(t *testing.T) {
	res, _ := run(t, quickRunner(), Request{Command: treeCommand, Timeout: time.Minute, ExpireAt: time.Now().Add(300 * time.Millisecond)})
	if res.ExitReason != ReasonExpired || !groupGone(t, res.Spawn.PGID) {
		t.Fatalf("reason %s, group left %v", res.ExitReason, pidsInGroup(t, res.Spawn.PGID))
	}
}

func TestShutdownEndsLiveTrees(t *testing.T) {
	rn := quickRunner()
	const n = 5
	recs := make([]*recorder, n)
	results := make(chan *Result, n)
	for i := range n {
		recs[i] = &recorder{}
		go func() {
			res, err := rn.Run(context.Background(), Request{Command: treeCommand, Env: testEnv(), Dir: t.TempDir(), ArtifactRoot: t.TempDir(), Timeout: time.Minute, Emit: recs[i]})
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	waitFor(t, func() bool {
		for _, r := range recs {
			if r.stream("stdout") == "" {
				return false
			}
		}
		return true
	})
	rn.Shutdown()
	for range n {
		res := <-results
		if res.ExitReason != ReasonCancelled || !groupGone(t, res.Spawn.PGID) {
			t.Fatalf("reason %s, group left %v", res.ExitReason, pidsInGroup(t, res.Spawn.PGID))
		}
	}
}

func TestLeftoversDieWithTheCall(t *testing.T) {
	start := time.Now()
	res, _ := run(t, quickRunner(), Request{Command: "sleep 60 & echo done"})
	if res.ExitReason != ReasonExited || res.ExitCode != 0 || res.Stdout.Tail != "done\n" {
		t.Fatalf("got %+v", res)
	}
	if time.Since(start) > 5*time.Second || !groupGone(t, res.Spawn.PGID) {
		t.Fatal("the backgrounded sleep outlived the call")
	}
}

func TestEscapedProcessDoesNotHoldTheCall(t *testing.T) {
	// setsid puts the sleep in a session of its own, outside the tree; it
	// keeps stdout open. The call must still end, and say the output was cut.
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("setsid(1) not installed")
	}
	start := time.Now()
	res, _ := run(t, quickRunner(), Request{Command: "setsid sleep 4 & sleep 0.3; echo started"})
	if time.Since(start) > 3900*time.Millisecond {
		t.Fatal("the call waited for the escaped process")
	}
	if res.ExitReason != ReasonFailed || !strings.Contains(res.Error, "cut") {
		t.Fatalf("reason %s, error %q; want failed with the cut explained", res.ExitReason, res.Error)
	}
}

// A stale PID is never signalled: with a marker that is not the PID's, the
// group kill is skipped, and only the leader we hold a handle to is hit.
func TestStaleMarkerSparesAStranger(t *testing.T) {
	stranger, err := os.StartProcess("/bin/sleep", []string{"sleep", "30"}, &os.ProcAttr{Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stranger.Kill(); _, _ = stranger.Wait() }()
	rd, wr, _ := os.Pipe()
	defer rd.Close()
	own, err := start("/bin/sh", "sleep 30", t.TempDir(), testEnv(), wr, wr, "sp_test")
	_ = wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMarker(stranger.Pid, "1"); !errors.Is(err, errNotOurs) {
		t.Fatalf("checkMarker with a wrong marker: %v, want errNotOurs", err)
	}
	own.PID, own.PGID, own.StartMarker = stranger.Pid, stranger.Pid, "1" // as if the PID had been reused
	own.terminate(ReasonCancelled, 100*time.Millisecond)
	if err := stranger.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the stranger was killed: %v", err)
	}
	select {
	case <-own.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("our own leader was not ended through its handle")
	}
}

func TestStartMarkerIsField22(t *testing.T) {
	m, err := startMarker(os.Getpid())
	if err != nil || m == "" || strings.Trim(m, "0123456789") != "" {
		t.Fatalf("startMarker(self) = %q, %v", m, err)
	}
	if _, err := startMarker(1 << 30); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("startMarker of a missing pid: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStatBriefAgreesWithStatFields(t *testing.T) {
	f, err := statFields(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	state, pgrp, marker, ok := statBrief(os.Getpid())
	if !ok || state != f[0][0] || strconv.Itoa(pgrp) != string(f[2]) || marker != string(f[19]) {
		t.Fatalf("statBrief = %c %d %s %v; statFields says %s %s %s", state, pgrp, marker, ok, f[0], f[2], f[19])
	}
	if _, _, _, ok := statBrief(1 << 30); ok {
		t.Fatal("statBrief of a missing pid succeeded")
	}
}

// Cancellation is single-flight: callers racing with different reasons
// all return once the tree is gone, and the first reason stands for all.
func TestTerminateIsSingleFlight(t *testing.T) {
	rd, wr, _ := os.Pipe()
	defer rd.Close()
	p, err := start("/bin/bash", treeCommand, t.TempDir(), testEnv(), wr, wr, "sp_sf")
	_ = wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(pidsInGroup(t, p.PGID)) >= 4 })
	reasons := []string{ReasonTimeout, ReasonCancelled, ReasonExpired, ReasonCancelled, ReasonTimeout, ReasonExpired}
	done := make(chan string, len(reasons))
	for _, r := range reasons {
		go func() {
			p.terminate(r, 100*time.Millisecond)
			if !groupGone(t, p.PGID) {
				done <- "returned before the group was gone"
				return
			}
			done <- p.reason
		}()
	}
	first := <-done
	for range len(reasons) - 1 {
		if got := <-done; got != first {
			t.Fatalf("callers saw %q and %q; the first reason must stand for all", first, got)
		}
	}
	if !slices.Contains(reasons, first) {
		t.Fatalf("reason %q is none of the callers'", first)
	}
	<-p.exited
}
