package main

import (
	"context"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

// TestSessionTasksWaitForADurableEnd: a cancelled task shows its sealed
// state at once, while its work still ends. A headless run in the host
// must still count it running until its end is durable, or it ends before
// the task's end reaches its loop.
func TestSessionTasksWaitForADurableEnd(t *testing.T) {
	h := openTestHost(t)
	s := h.OpenSessionAs("", false)
	m, err := h.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	scope := s.TaskScope()
	started, release := make(chan struct{}), make(chan struct{})
	task, err := m.Start(context.Background(), runtime.TaskSpec{Principal: scope.Principal, Session: scope.Session, Tool: "work"},
		func(ctx context.Context, out *runtime.TaskOutput) runtime.TaskOutcome {
			close(started)
			<-ctx.Done()
			<-release // its process tree takes a while to end
			return runtime.TaskOutcome{}
		})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	go m.Cancel(context.Background(), scope, task.ID)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if got, _ := m.Get(scope, task.ID); got.State == runtime.TaskCancelled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancel was not sealed within 10s")
		}
	}
	tasks := sessionTasks{h: h, s: s}
	if n := tasks.running(); n != 1 {
		t.Errorf("running while the sealed task still ends = %d, want 1", n)
	}
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tasks.waitAll(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tasks.running(); n != 0 {
		t.Errorf("running after the end = %d, want 0", n)
	}
}
