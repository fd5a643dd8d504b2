package turn_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// A child's end (agent.spawn, notify_policy return_to_parent) that a
// yield_until returned to the model starts no completion turn, as for a
// background command: the same Completions set is consumed.
func TestYieldUntilConsumesAChildsCompletion(t *testing.T) {
	var parentN atomic.Int32
	childAsked := make(chan struct{}, 1)
	model := &script{step: func(_ int, req providers.Request) (providers.Reply, error) {
		if strings.Contains(req.System, "[child agent") {
			childAsked <- struct{}{}
			return answer("the child's answer"), nil
		}
		switch n := parentN.Add(1); n {
		case 1:
			return calls(call("d", "delegate_task", `{"goal":"child work"}`)), nil
		case 2:
			id := taskID.FindString(lastResults(t, req)[0].Content)
			return calls(call("y", "yield_until", fmt.Sprintf(`{"task_id":%q,"timeout_seconds":30}`, id))), nil
		case 3:
			if r := lastResults(t, req)[0]; !strings.Contains(r.Content, "completed") || !strings.Contains(r.Content, "the child's answer") {
				t.Errorf("yield_until = %+v", r)
			}
			return answer("the child finished"), nil
		default:
			t.Errorf("parent request %d: a completion turn ran for a consumed child end: %+v", n, req.Messages[len(req.Messages)-1])
			return answer("again"), nil
		}
	}}
	f := newFixture(t, model)
	gate := &agents.Gate{Host: f.h, NewLoop: func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: model, Session: child, Store: f.store, System: "You are a test agent."}, nil
	}}
	gate.Install()
	ended := f.wireTasks(t)
	fe := &recorder{approver: &answerer{answer: approval.AllowOnce}}
	res, err := f.loop.Run(context.Background(), "delegate and wait", fe)
	if err != nil || res.Text != "the child finished" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	within(t, childAsked, 5*time.Second, "the child's request")
	if task := within(t, ended, 30*time.Second, "the child's end"); task.Tool != agents.TaskTool {
		t.Fatalf("ended %+v", task)
	}
	f.loop.Drain()
	if n := parentN.Load(); n != 3 {
		t.Fatalf("%d parent requests, want 3", n)
	}
}
