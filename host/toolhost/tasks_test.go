package toolhost

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

func untilCancelled(ctx context.Context, _ *runtime.TaskOutput) runtime.TaskOutcome {
	<-ctx.Done()
	return runtime.TaskOutcome{Failed: true}
}

// TestHostCloseCancelsTasks: Close runs the cancel path while the store is
// still open, so the task's end is on disk afterwards.
func TestHostCloseCancelsTasks(t *testing.T) {
	state := t.TempDir()
	h, err := open(t, "", state)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if turn.Background == nil || turn.Background.Tasks == nil {
		t.Fatal("a turn cannot run background calls")
	}
	m, _ := h.Tasks()
	scope := h.TaskScope()
	task, err := m.Start(context.Background(), runtime.TaskSpec{Principal: scope.Principal, Session: scope.Session, Tool: "terminal"}, untilCancelled)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := runtime.Open(filepath.Join(state, "demiurge.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Task(scope, task.ID)
	if err != nil || got.State != runtime.TaskCancelled || got.ExitReason != runtime.ExitReasonHostClose {
		t.Fatalf("after Close the task is %s/%s (%v)", got.State, got.ExitReason, err)
	}
}

// TestTasksOfADeadHostAreLost: a task recorded as running when its host
// stopped without closing is marked lost when the next host makes its
// task manager.
func TestTasksOfADeadHostAreLost(t *testing.T) {
	state := t.TempDir()
	s, err := runtime.Open(filepath.Join(state, "demiurge.db"))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := runtime.NewTaskManager(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	scope := runtime.TaskScope{Principal: "local:test", Session: "ses_dead"}
	task, err := m.Start(context.Background(), runtime.TaskSpec{Principal: scope.Principal, Session: scope.Session, Tool: "terminal"}, untilCancelled)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, _ := s.Task(scope, task.ID); got.State == runtime.TaskRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task never started")
		}
	}
	s.Close() // the host is gone: nothing more reaches the file
	m.Close()

	h, err := open(t, "", state)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Tasks(); err != nil {
		t.Fatal(err)
	}
	lost := h.LostTasks()
	if len(lost) != 1 || lost[0].ID != task.ID || lost[0].State != runtime.TaskLost {
		t.Fatalf("lost = %+v", lost)
	}
	got, err := h.tasks.manager.Get(runtime.TaskScope{Principal: "local:test", AllSessions: true}, task.ID)
	if err != nil || got.State != runtime.TaskLost || got.ExitReason != runtime.ExitReasonLost {
		t.Fatalf("task = %s/%s (%v)", got.State, got.ExitReason, err)
	}
}
