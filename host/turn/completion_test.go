package turn_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/turn"
)

var taskID = regexp.MustCompile(`task_[0-9a-f]+`)

// within fails the test unless ch delivers before the deadline.
func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not happen within %s", what, d)
		panic("unreachable")
	}
}

// wire hands the host's task ends to the loop and then to the test.
func (f *fixture) wireTasks(t *testing.T) <-chan runtime.Task {
	ended := make(chan runtime.Task, 4)
	stop := f.h.OnTaskComplete(func(task runtime.Task) {
		f.loop.TaskEnded(task)
		ended <- task
	})
	t.Cleanup(stop)
	return ended
}

const backgroundSleep = `{"command":"sleep 0.2","background":true}`

// A background task that ends with no yield_until to see it starts one
// completion turn in its session, once.
func TestBackgroundCompletionTurn(t *testing.T) {
	completion := make(chan providers.Request, 4)
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case n == 1:
			return calls(call("bg", "terminal", backgroundSleep)), nil
		case last.Role == providers.RoleUser && strings.HasPrefix(last.Text, "[background task ended]"):
			completion <- req
			return answer("the sleep finished"), nil
		}
		return answer("started it"), nil
	}}
	f := newFixture(t, model)
	ended := f.wireTasks(t)
	shown := &recorder{}
	f.loop.Completions = shown
	fe := &recorder{approver: &answerer{answer: approval.AllowOnce}}
	if _, err := f.loop.Run(context.Background(), "sleep in the background", fe); err != nil {
		t.Fatal(err)
	}
	started := taskID.FindString(fe.of(turn.EventToolResult)[0].Result)
	if started == "" {
		t.Fatalf("no task id in %+v", fe.of(turn.EventToolResult))
	}
	task := within(t, ended, 30*time.Second, "the task's end")
	req := within(t, completion, 30*time.Second, "the completion turn")
	f.loop.Drain()
	prompt := req.Messages[len(req.Messages)-1].Text
	if task.ID != started || !strings.Contains(prompt, started) || !strings.Contains(prompt, "state succeeded") {
		t.Fatalf("completion prompt = %q for task %s", prompt, started)
	}
	validHistory(t, req.Messages)
	if end := shown.of(turn.EventTurnEnd); len(end) != 1 || end[0].Status != "done" {
		t.Fatalf("the completion turn's front end saw %s", shown.kinds())
	}
	// Once: the same end again starts nothing.
	f.loop.TaskEnded(task)
	f.loop.Drain()
	if n := len(model.requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}

// A task end that a yield_until returned to the model starts no
// completion turn.
func TestYieldUntilConsumesTheCompletion(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		switch n {
		case 1:
			return calls(call("bg", "terminal", backgroundSleep)), nil
		case 2:
			id := taskID.FindString(lastResults(t, req)[0].Content)
			return calls(call("y", "yield_until", fmt.Sprintf(`{"task_id":%q,"timeout_seconds":30}`, id))), nil
		case 3:
			if r := lastResults(t, req)[0]; !strings.Contains(r.Content, "succeeded") {
				t.Errorf("yield_until = %+v", r)
			}
			return answer("it finished"), nil
		}
		t.Errorf("request %d: a completion turn ran for a consumed end: %+v", n, req.Messages[len(req.Messages)-1])
		return answer("again"), nil
	}}
	f := newFixture(t, model)
	ended := f.wireTasks(t)
	fe := &recorder{approver: &answerer{answer: approval.AllowOnce}}
	if _, err := f.loop.Run(context.Background(), "sleep and wait", fe); err != nil {
		t.Fatal(err)
	}
	within(t, ended, 30*time.Second, "the task's end")
	f.loop.Drain()
	if n := len(model.requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}
