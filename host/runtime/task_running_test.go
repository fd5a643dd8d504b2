package runtime

import (
	"context"
	"testing"
	"time"
)

// A task started Running is durable as running, with its session records,
// by the time Start returns: one commit, no separate start commit; a
// session record already there is kept (the first record of an id wins).
func TestTaskStartedRunningWithItsSessionsInOneCommit(t *testing.T) {
	m, s := newManager(t)
	if err := s.RecordSession(context.Background(), SessionRecord{ID: "ses_old", Principal: "alice"}); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	spec := ownerSpec
	spec.Running = true
	spec.Sessions = []SessionRecord{{ID: "ses_child", Principal: "alice", Parent: "ses_a"}, {ID: "ses_old", Principal: "mallory"}}
	task, err := m.Start(context.Background(), spec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		<-release
		return TaskOutcome{ExitReason: "exited"}
	})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Task(ownerScope, task.ID)
	if err != nil || rec.State != TaskRunning || !rec.Started.Equal(rec.Created) {
		t.Fatalf("stored at start: %+v %v", rec, err)
	}
	if sr, err := s.Session("alice", "ses_child"); err != nil || sr.Parent != "ses_a" {
		t.Fatalf("child session record: %+v %v", sr, err)
	}
	if _, err := s.Session("mallory", "ses_old"); err == nil {
		t.Fatal("a session record written with a task replaced an existing one")
	}
	close(release)
	done, _, err := m.Wait(context.Background(), ownerScope, task.ID, 30*time.Second)
	if err != nil || done.State != TaskSucceeded || !done.Started.Equal(rec.Started) {
		t.Fatalf("ended: %+v %v", done, err)
	}
}
