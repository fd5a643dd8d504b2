package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// taskMoments are the parts of a task's answer that differ between two
// tasks started alike: its id, session, result, when it was made and how
// long it ran.
var taskMoments = regexp.MustCompile(`(task|ses)_[0-9a-f]{20}|(?m)^result .*$|(?m)^(created|duration) .*$|"(created|started|ended|id|session)": "[^"]*"|"duration_ms": \d+`)

func blankMoments(res result) result {
	res.stdout = taskMoments.ReplaceAllString(res.stdout, "X")
	return res
}

// TestTasksWaitCancelFollowIsTheFrontEnds: with a host of the same
// options running, `tasks wait` (--timeout, --exit-code, --json),
// `tasks cancel` and `tasks logs --follow` are answered by the small
// front end as the full CLI answers them (output and exit status), also
// with the full host binary replaced by a stub that must not run; what
// it does not answer (an unknown or another principal's task, a
// --timeout the full CLI refuses) reaches the full host.
func TestTasksWaitCancelFollowIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	r.startHost()
	start := func(command string) string {
		t.Helper()
		res := r.host("--approve", "allow:terminal", "tools", "call", "terminal", `{"command":"`+command+`","background":true}`)
		id := taskID.FindString(res.stdout + res.stderr)
		if res.code != 0 || id == "" {
			t.Fatalf("background call: %s", res)
		}
		return id
	}
	ended := start(`echo $((6*7))-out`)
	failed := start(`echo bad; exit 3`)
	for _, id := range []string{ended, failed} {
		if res := r.host("tasks", "wait", id, "--timeout", "60s"); res.code != 0 {
			t.Fatalf("tasks wait: %s", res)
		}
	}
	running := start("sleep 120")
	alices := r.aliceTask()

	// Answers that do not move: compared byte for byte.
	cases := [][]string{
		{"tasks", "wait", ended},
		{"tasks", "wait", "--json", ended},
		{"tasks", "wait", failed, "--exit-code"},
		{"tasks", "wait", "--exit-code", "--json", failed},
		{"tasks", "wait", running, "--timeout", "300ms"},
		{"tasks", "wait", "--timeout=300ms", "--exit-code", running, "--json"},
		{"tasks", "cancel", ended},
		{"tasks", "cancel", "--json", failed},
		{"tasks", "logs", "--follow", ended},
		{"tasks", "logs", failed, "-f", "--json"},
	}
	fronts := r.same(cases, nil, false)
	for i, want := range []int{0, 0, 3, 3, 0, 124, 0, 0, 0, 0} {
		if fronts[i].code != want {
			t.Errorf("%q: exit %d, want %d: %s", cases[i], fronts[i].code, want, fronts[i])
		}
	}
	if !strings.Contains(fronts[4].stdout, "timed_out") || !strings.Contains(fronts[6].stdout, "had already ended") ||
		fronts[8].stdout != "42-out\n" || !strings.Contains(fronts[9].stdout, `"data": "bad\n"`) {
		t.Fatalf("unexpected answers: %s\n%s\n%s\n%s", fronts[4], fronts[6], fronts[8], fronts[9])
	}

	// What acts or streams, each on a task of its own: a running task
	// cancelled, and the log of one that writes, pauses and writes again
	// followed to its end.
	type actor struct{ cancel, follow []string }
	fresh := func(pause string) actor {
		return actor{[]string{"tasks", "cancel", start("sleep 120")}, []string{"tasks", "logs", start(`echo a; sleep ` + pause + `; echo b`), "--follow"}}
	}
	act := func(run func(...string) result, a actor) (cancel, follow result) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); follow = run(a.follow...) }()
		cancel = blankMoments(run(a.cancel...))
		wg.Wait()
		return cancel, follow
	}
	lc, lf := act(r.launcher, fresh("2"))
	hc, hf := act(r.host, fresh("2"))
	if lc != hc || lf != hf || lc.code != 0 || !strings.Contains(lc.stdout, "cancelled") || lf.stdout != "a\nb\n" || lf.code != 0 {
		t.Fatalf("cancel or follow differ\nlauncher: %s\n%s\nhost: %s\n%s", lc, lf, hc, hf)
	}

	// Started by the full host before it is stubbed; the pause outlasts
	// the answers before the follow.
	third := fresh("6")
	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	r.sameStubbed(cases, fronts, nil)
	if sc, sf := act(r.launcher, third); sc != lc || sf != lf {
		t.Errorf("cancel or follow with the full host stubbed: %s\n%s\nwant %s\n%s", sc, sf, lc, lf)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the full host ran: %s", b)
	}
	for _, args := range [][]string{
		{"tasks", "wait", alices},
		{"tasks", "cancel", alices},
		{"tasks", "logs", "--follow", alices},
		{"tasks", "wait", "task_00000000000000000000"},
		{"tasks", "cancel", "task_00000000000000000000"},
		{"tasks", "wait", "--timeout", "0s", ended},
		{"tasks", "wait", "--timeout", "1", ended},
		{"tasks", "wait", "-timeout", "1s", ended},
		{"tasks", "wait", ended, "--follow"},
		{"tasks", "cancel", ended, running},
		{"tasks", "logs", "--follow", "--follow", ended},
	} {
		r.reachesFullHost(marker, nil, append([]string{"--state", r.state}, args...)...)
	}
}

// TestTasksWaitInterrupted: Ctrl-C during `tasks wait` and `tasks logs
// --follow` ends the small front end as it ends the full CLI (what it
// says, its exit status), and the task goes on.
func TestTasksWaitInterrupted(t *testing.T) {
	r := newRig(t)
	r.startHost()
	res := r.host("--approve", "allow:terminal", "tools", "call", "terminal", `{"command":"echo up; sleep 120","background":true}`)
	id := taskID.FindString(res.stdout + res.stderr)
	if res.code != 0 || id == "" {
		t.Fatalf("background call: %s", res)
	}
	for _, args := range [][]string{{"tasks", "wait", id, "--timeout", "60s"}, {"tasks", "logs", "-f", id}} {
		var got [2]result
		for i, binary := range []string{"demiurge", HostBinary} {
			got[i] = r.interrupted(binary, 1500*time.Millisecond, append([]string{"--state", r.state}, args...)...)
		}
		if got[0] != got[1] || got[0].code != 130 {
			t.Errorf("%q interrupted: the launcher and the host differ\nlauncher: %s\nhost: %s", args, got[0], got[1])
		}
	}
	if res := r.host("tasks", "show", id); !strings.Contains(res.stdout, "running") {
		t.Fatalf("the task did not go on: %s", res)
	}
}

// interrupted runs a binary of the rig as "demiurge" and sends it SIGINT
// once it has run for d (time to reach the host and start waiting).
func (r *rig) interrupted(binary string, d time.Duration, args ...string) result {
	r.t.Helper()
	return r.interruptedEnv(binary, d, nil, args...)
}

// interruptedEnv is interrupted with env added.
func (r *rig) interruptedEnv(binary string, d time.Duration, env []string, args ...string) result {
	r.t.Helper()
	cmd := r.command(binary, env, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	time.Sleep(d)
	cmd.Process.Signal(syscall.SIGINT)
	return r.ended(cmd, cmd.Wait(), &stdout, &stderr)
}

// TestTasksFollowHostDies: a host killed while `tasks logs --follow`
// prints its task's output ends the small front end's follow as it ends
// the full CLI's: both answer again from the store, from the start.
func TestTasksFollowHostDies(t *testing.T) {
	r := newRig(t)
	var got []result
	for _, binary := range []string{"demiurge", HostBinary} {
		pid := r.startHostPID()
		res := r.host("--approve", "allow:terminal", "tools", "call", "terminal", `{"command":"echo a; sleep 60","background":true}`)
		id := taskID.FindString(res.stdout + res.stderr)
		if res.code != 0 || id == "" {
			t.Fatalf("background call: %s", res)
		}
		cmd := &exec.Cmd{Path: filepath.Join(r.bin, binary), Args: []string{"demiurge", "--state", r.state, "tasks", "logs", "--follow", id},
			Dir: r.ws, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home}}
		var stdout, stderr lockedBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); stdout.String() != "a\n"; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%s: the follow printed %q", binary, stdout.String())
			}
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		got = append(got, blankMoments(result{code: code, stdout: stdout.String(), stderr: taskMoments.ReplaceAllString(stderr.String(), "X")}))
	}
	if got[0] != got[1] || !strings.HasPrefix(got[0].stdout, "a\n") {
		t.Fatalf("the front end and the full CLI differ\nfront: %s\nfull: %s", got[0], got[1])
	}
	t.Logf("both: %s", got[0])
}

// lockedBuffer is a buffer a test reads while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
