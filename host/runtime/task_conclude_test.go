package runtime

import (
	"context"
	"testing"
	"time"
)

// TestEndNotShownBeforeDurable holds a task between its work's return and
// the write of its end: queries must still see it unended then. A caller
// that saw it succeeded there (a headless run counting its session's
// running tasks) stopped waiting before the end was durable and before the
// completion hook had run, so the end never reached its turn loop.
func TestEndNotShownBeforeDurable(t *testing.T) {
	m, _ := newManager(t)
	held, release := make(chan Task, 1), make(chan struct{})
	m.beforeFinish = func(tk Task) {
		held <- tk
		<-release
	}
	published := make(chan Task, 1)
	m.OnComplete(func(tk Task) { published <- tk })
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		return TaskOutcome{Result: "done"}
	})
	if err != nil {
		t.Fatal(err)
	}
	var concluded Task
	select {
	case concluded = <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the task did not conclude within 10s")
	}
	if concluded.State != TaskSucceeded {
		t.Fatalf("concluded %s, want succeeded", concluded.State)
	}
	got, err := m.Get(ownerScope, task.ID)
	if err != nil || got.State.Terminal() {
		t.Errorf("before its end is durable Get = %s (%v), want it unended", got.State, err)
	}
	ts, err := m.List(ownerScope)
	if err != nil || len(ts) != 1 || ts[0].State.Terminal() {
		t.Errorf("before its end is durable List = %+v (%v), want it unended", ts, err)
	}
	if n := m.Running(); n != 1 {
		t.Errorf("Running = %d, want 1", n)
	}
	// A cancel now loses to the concluded outcome.
	if lt := m.liveTask(ownerScope, task.ID); lt == nil || lt.seal(TaskCancelled, ExitReasonCancelled, "") {
		t.Error("a cancel won over the concluded outcome")
	}
	close(release)
	select {
	case tk := <-published:
		if tk.State != TaskSucceeded || tk.Ended.IsZero() {
			t.Errorf("published %s ended %v, want succeeded with its end", tk.State, tk.Ended)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the end was not published within 10s")
	}
	if got, err := m.Get(ownerScope, task.ID); err != nil || got.State != TaskSucceeded || got.Ended.IsZero() {
		t.Errorf("after its end Get = %s ended %v (%v)", got.State, got.Ended, err)
	}
}
