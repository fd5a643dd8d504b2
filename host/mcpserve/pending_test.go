package mcpserve

import (
	"context"
	"errors"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
)

// TestPendingApprovalIsBound: an answer a stateless client carries back
// counts only for the session, tool and arguments it was asked for, once.
func TestPendingApprovalIsBound(t *testing.T) {
	call := dispatch.ToolCall{Name: "write_file", Args: []byte(`{"path":"a","content":"x"}`)}
	cases := []struct {
		name    string
		session string
		call    dispatch.ToolCall
		ok      bool
	}{
		{"same call", "ses_a", call, true},
		{"another session", "ses_b", call, false},
		{"another tool", "ses_a", dispatch.ToolCall{Name: "patch", Args: call.Args}, false},
		{"other arguments", "ses_a", dispatch.ToolCall{Name: call.Name, Args: []byte(`{"path":"/etc/passwd","content":"x"}`)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p pendingApprovals
			state := p.put(pendingApproval{sessionID: "ses_a", tool: call.Name, args: argsDigest(call.Args), fingerprint: "fp"})
			if _, ok := p.take(state, c.session, c.call); ok != c.ok {
				t.Fatalf("take: %v, want %v", ok, c.ok)
			}
			if _, ok := p.take(state, "ses_a", call); ok {
				t.Fatal("a state was taken twice")
			}
		})
	}
	var p pendingApprovals
	if _, ok := p.take("never-issued", "ses_a", call); ok {
		t.Fatal("a state that was never issued was accepted")
	}
}

// TestCarriedAnswerCoversOneApproval: the carried answer decides only the
// approval whose fingerprint it was given for; any other is asked anew.
func TestCarriedAnswerCoversOneApproval(t *testing.T) {
	a := &approver{s: &Server{}, canElicit: true, modern: true,
		answer: &pendingApproval{fingerprint: "fp-1", answer: approval.AllowOnce}}
	got, err := a.Ask(context.Background(), approval.Request{Tool: "write_file", Fingerprint: "fp-2"})
	if got != approval.Deny || !errors.Is(err, errInputRequired) || a.asked == nil {
		t.Fatalf("another approval got the carried answer: %v %v", got, err)
	}
	a = &approver{s: &Server{}, canElicit: true, modern: true,
		answer: &pendingApproval{fingerprint: "fp-1", answer: approval.AllowOnce}}
	if got, err := a.Ask(context.Background(), approval.Request{Fingerprint: "fp-1"}); got != approval.AllowOnce || err != nil {
		t.Fatalf("%v %v", got, err)
	}
	if got, _ := a.Ask(context.Background(), approval.Request{Fingerprint: "fp-1"}); got != approval.Deny {
		t.Fatal("the carried answer was used twice")
	}
}
