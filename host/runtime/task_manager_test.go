package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	ownerScope   = TaskScope{Principal: "alice", Session: "ses_a"}
	ownerSpec    = TaskSpec{Principal: "alice", Session: "ses_a", Tool: "stream", Summary: "stream"}
	otherSession = TaskScope{Principal: "alice", Session: "ses_b"}
	otherUser    = TaskScope{Principal: "mallory", Session: "ses_a"}
	operator     = TaskScope{Principal: "alice", AllSessions: true}
)

func newManager(t *testing.T) (*TaskManager, *Store) {
	t.Helper()
	s, _ := openTemp(t)
	m, lost, err := NewTaskManager(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) != 0 {
		t.Fatalf("a new store has lost tasks: %v", lost)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// writeUntilCancelled is a task that writes a line every few milliseconds
// until it is cancelled, the way a long build does.
func writeUntilCancelled(ctx context.Context, out *TaskOutput) TaskOutcome {
	for i := 0; ; i++ {
		if err := out.Write("stdout", fmt.Appendf(nil, "line %d\n", i)); err != nil {
			return TaskOutcome{Failed: true, Result: err.Error()}
		}
		select {
		case <-ctx.Done():
			return TaskOutcome{Failed: true, ExitReason: "killed"}
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func exitCode(n int) *int { return &n }

func TestTaskRunsToItsRecordedEnd(t *testing.T) {
	m, s := newManager(t)
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		out.Write("stdout", []byte("hello\n"))
		out.Write("stderr", []byte("warn\n"))
		out.Write("stdout", bytes.Repeat([]byte("x"), MaxLogChunk+10)) // split into two chunks
		out.Artifact("0a1b/stdout.log")
		return TaskOutcome{ReturnCode: exitCode(0), ExitReason: "exited", Result: "done"}
	})
	if err != nil {
		t.Fatal(err)
	}
	if task.State != TaskQueued || !strings.HasPrefix(task.ID, "task_") {
		t.Fatalf("Start returned %+v", task)
	}
	got, timedOut, err := m.Wait(context.Background(), ownerScope, task.ID, 5*time.Second)
	if err != nil || timedOut {
		t.Fatalf("Wait: %v, timed out %v", err, timedOut)
	}
	stored, err := s.Task(ownerScope, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range []Task{got, stored} {
		if tk.State != TaskSucceeded || tk.ReturnCode == nil || *tk.ReturnCode != 0 || tk.ExitReason != "exited" ||
			tk.Result != "done" || tk.ResultRef != "0a1b/stdout.log" || tk.LogChunks != 4 || tk.Started.IsZero() || tk.Ended.IsZero() {
			t.Errorf("task = %+v", tk)
		}
		if st := tk.Streams["stdout"]; st.Bytes != int64(6+MaxLogChunk+10) || len(st.Tail) != TailChars || !st.Truncated {
			t.Errorf("stdout stats = bytes %d tail %q…", st.Bytes, shorten(st.Tail, 10))
		}
		if st := tk.Streams["stderr"]; st.Tail != "warn\n" || st.Chars != 5 {
			t.Errorf("stderr stats = %+v", st)
		}
	}
	var logs []LogChunk
	if err := m.Logs(context.Background(), ownerScope, task.ID, 0, false, func(c LogChunk) error { logs = append(logs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(logs) != 4 || string(logs[0].Data) != "hello\n" || logs[1].Stream != "stderr" || len(logs[2].Data) != MaxLogChunk || len(logs[3].Data) != 10 {
		t.Fatalf("logs = %d chunks", len(logs))
	}
	evs, err := s.Events(EventQuery{Kind: EventKindTaskFinished})
	if err != nil || len(evs) != 1 || !strings.Contains(string(evs[0].Data), `"state":"succeeded"`) || strings.Contains(string(evs[0].Data), "hello") {
		t.Fatalf("task.finished events = %v (%v); want one, with no output in it", evs, err)
	}
}

// TestForeignTaskLooksMissing: every query with an id of another principal
// or session answers exactly as for an id that does not exist.
func TestForeignTaskLooksMissing(t *testing.T) {
	m, _ := newManager(t)
	release := make(chan struct{})
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		out.Write("stdout", []byte("secret output\n"))
		<-release
		return TaskOutcome{}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer close(release)
	missing := "task_" + strings.Repeat("0", 20)
	var answers func(scope TaskScope, id string) []string
	answers = func(scope TaskScope, id string) []string {
		ctx := context.Background()
		var out []string
		_, err := m.Get(scope, id)
		out = append(out, fmt.Sprint(err))
		_, timedOut, err := m.Wait(ctx, scope, id, 10*time.Millisecond)
		out = append(out, fmt.Sprint(timedOut, err))
		_, err = m.Cancel(ctx, scope, id)
		out = append(out, fmt.Sprint(err))
		err = m.Logs(ctx, scope, id, 0, true, func(LogChunk) error { return errors.New("a chunk was delivered") })
		out = append(out, fmt.Sprint(err))
		list, _ := m.List(scope)
		for _, tk := range list {
			if tk.ID == id {
				out = append(out, "listed")
			}
		}
		return out
	}
	// Every answer must come at once. With the ownership check broken, a
	// cancel or a log follow would wait on the live task, which waits for
	// release: the queries get their own deadline instead of the go test
	// timeout.
	answersWithin := answers
	answers = func(scope TaskScope, id string) []string {
		got := make(chan []string, 1)
		go func() { got <- answersWithin(scope, id) }()
		select {
		case a := <-got:
			return a
		case <-time.After(20 * time.Second):
			t.Fatalf("the queries of %s as %+v did not return within 20s: one waited on a task the caller may not see", id, scope)
			return nil
		}
	}
	want := answers(ownerScope, missing)
	for _, err := range want[:4] {
		if !strings.Contains(err, "no such task") {
			t.Fatalf("missing task answered %q", err)
		}
	}
	for name, scope := range map[string]TaskScope{"other session": otherSession, "other principal": otherUser, "no principal": {Session: "ses_a"}, "all sessions of another principal": {Principal: "mallory", AllSessions: true}} {
		got := answers(scope, task.ID)
		for i := range got {
			got[i] = strings.ReplaceAll(got[i], task.ID, missing)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: foreign task answered %q, a missing one %q", name, got, want)
		}
	}
	// The owner and the owner's operator view see it.
	for _, scope := range []TaskScope{ownerScope, operator} {
		if _, err := m.Get(scope, task.ID); err != nil {
			t.Errorf("owner scope %+v: %v", scope, err)
		}
	}
}

func TestWaitTimeoutReturnsCurrentStatus(t *testing.T) {
	m, _ := newManager(t)
	task, err := m.Start(context.Background(), ownerSpec, writeUntilCancelled)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, _ := m.Get(ownerScope, task.ID); got.Streams["stdout"].Bytes > 0 || time.Now().After(deadline) {
			break
		}
	}
	got, timedOut, err := m.Wait(context.Background(), ownerScope, task.ID, 50*time.Millisecond)
	if err != nil || !timedOut || got.State != TaskRunning || got.Streams["stdout"].Bytes == 0 {
		t.Fatalf("Wait = %s, timed out %v, %v; want running with output, timed out", got.State, timedOut, err)
	}
	if _, err := m.Cancel(context.Background(), ownerScope, task.ID); err != nil {
		t.Fatal(err)
	}
	got, timedOut, err = m.Wait(context.Background(), ownerScope, task.ID, time.Second)
	if err != nil || timedOut || got.State != TaskCancelled {
		t.Fatalf("Wait after cancel = %s, timed out %v, %v", got.State, timedOut, err)
	}
}

// TestCancelPersistsBeforePublishing checks the cancel order: the work is
// cancelled and has returned (its tree is gone), the terminal state is on
// disk, and only then is completion published; concurrent cancels share it.
func TestCancelPersistsBeforePublishing(t *testing.T) {
	m, s := newManager(t)
	var mu sync.Mutex
	var workEnded time.Time
	published := make(chan Task, 1)
	m.OnComplete(func(tk Task) {
		stored, err := s.Task(ownerScope, tk.ID)
		if err != nil || stored.State != TaskCancelled || stored.ExitReason != ExitReasonCancelled {
			t.Errorf("at publication the store holds %s/%s (%v); want cancelled", stored.State, stored.ExitReason, err)
		}
		mu.Lock()
		if workEnded.IsZero() {
			t.Error("completion published before the work returned")
		}
		mu.Unlock()
		published <- tk
	})
	sawCancel, running := make(chan struct{}), make(chan struct{})
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		close(running)
		<-ctx.Done()
		close(sawCancel)
		// The terminal tool kills the tree here (TERM, grace, KILL): the
		// work takes a while to end (a duration, not a synchronisation).
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		workEnded = time.Now()
		mu.Unlock()
		return TaskOutcome{Failed: true, ExitReason: "signal"}
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatal("the task's work did not start within 10s")
	}
	var wg sync.WaitGroup
	results := make([]Task, 5)
	for i := range results {
		wg.Go(func() {
			tk, err := m.Cancel(context.Background(), ownerScope, task.ID)
			if err != nil {
				t.Error(err)
			}
			results[i] = tk
		})
	}
	<-sawCancel
	// Sealed in memory at once, before the work has returned.
	if got, _ := m.Get(ownerScope, task.ID); got.State != TaskCancelled {
		t.Errorf("state while ending = %s, want cancelled (sealed)", got.State)
	}
	wg.Wait()
	for _, tk := range results {
		if tk.State != TaskCancelled || tk.ExitReason != ExitReasonCancelled || tk.Ended.IsZero() {
			t.Errorf("Cancel returned %s/%s", tk.State, tk.ExitReason)
		}
	}
	if tk := <-published; tk.State != TaskCancelled {
		t.Errorf("published %s", tk.State)
	}
	select {
	case tk := <-published:
		t.Errorf("completion published twice: %+v", tk)
	default:
	}
	// Cancelling an ended task returns it as it ended.
	if tk, err := m.Cancel(context.Background(), ownerScope, task.ID); err != nil || tk.State != TaskCancelled {
		t.Errorf("second cancel = %s, %v", tk.State, err)
	}
}

func TestFiftyTasksCancelledAtOnce(t *testing.T) {
	m, s := newManager(t)
	var ids []string
	var writing sync.WaitGroup
	writing.Add(50)
	for range 50 {
		task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
			if err := out.Write("stdout", []byte("started\n")); err != nil {
				return TaskOutcome{Failed: true, Result: err.Error()}
			}
			writing.Done()
			return writeUntilCancelled(ctx, out)
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	// Cancel them all while every one of them is writing.
	allWriting := make(chan struct{})
	go func() { writing.Wait(); close(allWriting) }()
	select {
	case <-allWriting:
	case <-time.After(30 * time.Second):
		t.Fatal("the 50 tasks were not all writing within 30s")
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if tk, err := m.Cancel(context.Background(), ownerScope, id); err != nil || tk.State != TaskCancelled {
				t.Errorf("cancel %s: %s, %v", id, tk.State, err)
			}
		})
	}
	wg.Wait()
	if n := m.Running(); n != 0 {
		t.Fatalf("%d tasks still running", n)
	}
	list, err := s.Tasks(ownerScope)
	if err != nil || len(list) != 50 {
		t.Fatalf("store lists %d tasks (%v), want 50", len(list), err)
	}
	for _, tk := range list {
		if tk.State != TaskCancelled || tk.ExitReason != ExitReasonCancelled || tk.Ended.IsZero() {
			t.Errorf("%s recorded as %s/%s", tk.ID, tk.State, tk.ExitReason)
		}
		logs, err := s.TaskLogs(ownerScope, tk.ID, 0, 0)
		if err != nil || uint64(len(logs)) != tk.LogChunks || len(logs) == 0 {
			t.Errorf("%s: %d log chunks stored, record says %d (%v)", tk.ID, len(logs), tk.LogChunks, err)
		}
	}
	evs, _ := s.Events(EventQuery{Kind: EventKindTaskFinished})
	if len(evs) != 50 {
		t.Errorf("%d task.finished events, want 50", len(evs))
	}
}

func TestCloseCancelsRunningTasks(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	m, _, err := NewTaskManager(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	task, err := m.Start(context.Background(), ownerSpec, writeUntilCancelled)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	tk, err := s.Task(ownerScope, task.ID)
	if err != nil || tk.State != TaskCancelled || tk.ExitReason != ExitReasonHostClose {
		t.Fatalf("after Close the task is %s/%s (%v); want cancelled/%s", tk.State, tk.ExitReason, err, ExitReasonHostClose)
	}
	if _, err := m.Start(context.Background(), ownerSpec, writeUntilCancelled); !errors.Is(err, ErrManagerClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
}

// TestRecoverMarksLeftoverTasksLost: a task recorded as running by a host
// that died is marked lost when the store is next opened.
func TestRecoverMarksLeftoverTasksLost(t *testing.T) {
	s, path := openTemp(t)
	ctx := context.Background()
	for _, id := range []string{"task_queued", "task_running", "task_done"} {
		if err := s.createTask(ctx, Task{ID: id, Principal: "alice", Session: "ses_a", State: TaskQueued, Created: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	s.markRunning(ctx, "task_running", time.Now())
	s.finishTask(ctx, Task{ID: "task_done", Principal: "alice", Session: "ses_a", State: TaskSucceeded, ReturnCode: exitCode(0)})
	s.Close() // the host died: nobody finished the first two
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	m, lost, err := NewTaskManager(ctx, s2)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if len(lost) != 2 {
		t.Fatalf("lost = %v, want the queued and the running task", lost)
	}
	for id, want := range map[string]TaskState{"task_queued": TaskLost, "task_running": TaskLost, "task_done": TaskSucceeded} {
		tk, err := m.Get(operator, id)
		if err != nil || tk.State != want {
			t.Errorf("%s: %s (%v), want %s", id, tk.State, err, want)
		}
		if want == TaskLost && (tk.ExitReason != ExitReasonLost || tk.Ended.IsZero()) {
			t.Errorf("%s: lost without reason or end: %+v", id, tk)
		}
	}
	if evs, _ := s2.Events(EventQuery{Kind: EventKindTaskLost}); len(evs) != 2 {
		t.Errorf("%d task.lost events, want 2", len(evs))
	}
}

func TestLogKeepsNewestChunks(t *testing.T) {
	m, s := newManager(t)
	total := MaxLogChunks + 100
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		for i := range total {
			out.Write("stdout", fmt.Appendf(nil, "%d\n", i))
		}
		return TaskOutcome{ReturnCode: exitCode(0)}
	})
	if err != nil {
		t.Fatal(err)
	}
	tk, _, _ := m.Wait(context.Background(), ownerScope, task.ID, 5*time.Second)
	logs, err := s.TaskLogs(ownerScope, task.ID, 0, 0)
	if err != nil || len(logs) != MaxLogChunks || logs[0].Seq != 101 || string(logs[len(logs)-1].Data) != fmt.Sprintf("%d\n", total-1) {
		t.Fatalf("%d chunks kept (%v), first seq %d", len(logs), err, logs[0].Seq)
	}
	if tk.LogChunks != uint64(total) {
		t.Errorf("record counts %d chunks, want %d", tk.LogChunks, total)
	}
}

// TestLogFollowDeliversEverything follows a live task's log to its end.
func TestLogFollowDeliversEverything(t *testing.T) {
	m, _ := newManager(t)
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		for i := range 20 {
			out.Write("stdout", fmt.Appendf(nil, "%d\n", i))
			time.Sleep(15 * time.Millisecond) // pacing, so the follow is of a live task; not a synchronisation
		}
		return TaskOutcome{ReturnCode: exitCode(0)}
	})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	if err := m.Logs(context.Background(), ownerScope, task.ID, 0, true, func(c LogChunk) error { got.Write(c.Data); return nil }); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range 20 {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if got.String() != want.String() {
		t.Fatalf("followed log = %q, want %q", got.String(), want.String())
	}
}

// TestLogFailureFailsTheTask: output that cannot be stored stops the work
// and the task ends failed.
func TestLogFailureFailsTheTask(t *testing.T) {
	s, _ := openTemp(t)
	m, _, err := NewTaskManager(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	started := make(chan struct{})
	task, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		close(started)
		return writeUntilCancelled(ctx, out)
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	s.Close() // the disk is gone
	tk, timedOut, err := m.Wait(context.Background(), ownerScope, task.ID, 5*time.Second)
	if err != nil || timedOut || tk.State != TaskFailed || tk.ExitReason != ExitReasonLogFailed {
		t.Fatalf("task = %s/%s timed out %v (%v); want failed/%s", tk.State, tk.ExitReason, timedOut, err, ExitReasonLogFailed)
	}
}
