package runtime

import (
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
