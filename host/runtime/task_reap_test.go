package runtime

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReapKillsOnlyMarkedProcesses(t *testing.T) {
	start := func(id string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), TaskEnvVar + "=" + id}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	lost, other := start("task_lost"), start("task_other")
	prefix := start("task_lost_not") // a longer id is another task
	killed := reapTaskProcesses([]string{"task_lost"})
	if !slices.Equal(killed, []int{lost.Process.Pid}) {
		t.Fatalf("killed %v, want only %d", killed, lost.Process.Pid)
	}
	done := make(chan error, 1)
	go func() { done <- lost.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the marked process is still running")
	}
	for _, c := range []*exec.Cmd{other, prefix} {
		if err := c.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("process %d of another task was killed: %v", c.Process.Pid, err)
		}
	}
	if got := reapTaskProcesses(nil); got != nil {
		t.Errorf("reap of no ids killed %v", got)
	}
}

// TestReaperEndsTheTasksStillTrackedWhenItsInputEnds: the host's end
// closes the pipe; only tasks tracked and not untracked are reaped.
func TestReaperEndsTheTasksStillTrackedWhenItsInputEnds(t *testing.T) {
	start := func(id string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), TaskEnvVar + "=" + id}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	running, ended := "task_"+strings.Repeat("a", 20), "task_"+strings.Repeat("b", 20)
	a, b := start(running), start(ended)
	input := "+" + running + "\n+" + ended + "\n-" + ended + "\n+not-a-task-id\n+" + strings.Repeat("x", 100) + "\n"
	killed := reapWhenDone(strings.NewReader(input))
	if !slices.Equal(killed, []int{a.Process.Pid}) {
		t.Fatalf("killed %v, want %d (the task still tracked)", killed, a.Process.Pid)
	}
	if err := b.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("an untracked task's process was killed: %v", err)
	}
}

// TestTaskEndWaitsForItsProcesses: a task whose work returned but left a
// marked process behind (a plugin that did not end its tree) is recorded
// only after the host has ended that process.
func TestTaskEndWaitsForItsProcesses(t *testing.T) {
	defer func(g time.Duration) { treeGrace = g }(treeGrace)
	treeGrace = 200 * time.Millisecond
	m, s := newManager(t)
	started := make(chan int, 1)
	var child *exec.Cmd
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		child = exec.Command("sleep", "60")
		child.Env = []string{"PATH=" + os.Getenv("PATH"), TaskEnvVar + "=" + out.ID()}
		if err := child.Start(); err != nil {
			t.Error(err)
		}
		started <- child.Process.Pid
		<-ctx.Done()
		return TaskOutcome{Failed: true} // and leaves the child running
	})
	if err != nil {
		t.Fatal(err)
	}
	pid := <-started
	gone := make(chan struct{})
	go func() { child.Wait(); close(gone) }()
	m.OnComplete(func(Task) {
		select {
		case <-gone:
		case <-time.After(10 * time.Second): // the process sleeps 60 s: only a real miss waits this long
			t.Errorf("the task's end was published while its process %d still ran", pid)
		}
	})
	if got, err := m.Cancel(context.Background(), ownerScope, task.ID); err != nil || got.State != TaskCancelled {
		t.Fatalf("cancel = %s, %v", got.State, err)
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatalf("process %d of the cancelled task still runs", pid)
	}
	if stored, _ := s.Task(ownerScope, task.ID); stored.State != TaskCancelled {
		t.Fatalf("stored %s", stored.State)
	}
}
