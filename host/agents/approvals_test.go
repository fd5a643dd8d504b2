package agents_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	pt "demiurge.dev/host/providers/providertest"
)

// recordingAsker is the root session's front end: it answers every
// prompt the same and keeps what it was asked.
type recordingAsker struct {
	answer approval.Answer
	mu     sync.Mutex
	asked  []approval.Request
}

func (a *recordingAsker) Name() string { return "test-front-end" }

func (a *recordingAsker) Ask(_ context.Context, req approval.Request) (approval.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.answer, nil
}

// A child's approval goes to the root's front end naming the child; an
// "allow for session" there is the child's own: its sibling, doing the
// very same write, is asked again.
func TestChildApprovalsGoToTheRootFrontEndAndStayTheChilds(t *testing.T) {
	write := pt.Step{ToolCalls: []pt.ToolCall{{ID: "w1", Name: "write_file", Args: `{"path":"out.txt","content":"hi"}`}}}
	f := newFixture(t, agents.Limits{}, []pt.Step{
		child("first writer", write), child("first writer", pt.Step{Text: []string{"wrote"}}),
		child("second writer", write), child("second writer", pt.Step{Text: []string{"wrote too"}}),
	})
	asker := &recordingAsker{answer: approval.AllowSession}
	for _, goal := range []string{"first writer", "second writer"} {
		call := dispatch.DelegateCall{Turn: "turn_ap", CallID: "c", Asker: asker,
			Args: json.RawMessage(`{"goal":"` + goal + `","tools":["write_file"],"notify_policy":"wait"}`)}
		out, err := f.gate.Delegate(context.Background(), f.h.Session(), call)
		if err != nil || !strings.Contains(out, `"status":"completed"`) {
			t.Fatalf("%s: %s %v", goal, out, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "out.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("out.txt: %q %v", b, err)
	}
	if len(asker.asked) != 2 {
		t.Fatalf("asked %d times, want once per child (a child's session allow is its own)", len(asker.asked))
	}
	for i, goal := range []string{"first writer", "second writer"} {
		r := asker.asked[i]
		if len(r.Reasons) == 0 || !strings.HasPrefix(r.Reasons[0], "asked by child agent ses_") || !strings.Contains(r.Reasons[0], "(depth 1), goal: "+goal) {
			t.Errorf("prompt %d reasons %q", i, r.Reasons)
		}
		if r.Authority.Session == f.h.Session().ID() {
			t.Errorf("prompt %d carries the parent's session: an allow would cover the parent", i)
		}
	}
}

// With no one to ask (the parent's turn is headless) the child's prompt
// is denied and the child's tool result says so.
func TestChildApprovalWithNoOneToAskIsDenied(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{
		child("lonely writer", pt.Step{ToolCalls: []pt.ToolCall{{ID: "w1", Name: "write_file", Args: `{"path":"out.txt","content":"hi"}`}}}),
		child("lonely writer", pt.Step{Text: []string{"denied"}}),
	})
	out, err := f.gate.Delegate(context.Background(), f.h.Session(), delegateCall("turn_dn", `{"goal":"lonely writer","notify_policy":"wait"}`))
	if err != nil || !strings.Contains(out, `"status":"completed"`) {
		t.Fatalf("%s %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "out.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied write happened: %v", err)
	}
	reqs := f.srv.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "write_file was not approved") {
		t.Fatalf("the child was not told: %.3000s", reqs[len(reqs)-1].Body)
	}
}
