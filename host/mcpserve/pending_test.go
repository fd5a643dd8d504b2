package mcpserve

import (
	"context"
	"errors"
	"reflect"
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
			state := p.put(pendingApproval{sessionID: "ses_a", call: callDigest(call), fingerprint: "fp"})
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

// TestAnAnswerIsBoundToEveryFieldOfTheCall: closed world over
// dispatch.ToolCall. An answer carried back counts for the call asked
// with every field as it was, but those callNotBound lists (its id, a
// retried request's own); a field added to ToolCall later is bound
// unless listed there, and one that cannot reach the digest fails here.
func TestAnAnswerIsBoundToEveryFieldOfTheCall(t *testing.T) {
	asked := dispatch.ToolCall{ID: "1", Name: "write_file", Args: []byte(`{"path":"a"}`)}
	typ := reflect.TypeOf(asked)
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		retried := asked
		f := reflect.ValueOf(&retried).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Slice:
			f.SetBytes(append(append([]byte(nil), f.Bytes()...), ' '))
		default:
			t.Fatalf("ToolCall.%s of type %s: teach this test to change it", name, f.Type())
		}
		var p pendingApprovals
		state := p.put(pendingApproval{sessionID: "ses_a", call: callDigest(asked), fingerprint: "fp"})
		_, ok := p.take(state, "ses_a", retried)
		if _, free := callNotBound[name]; free != ok {
			t.Errorf("ToolCall.%s changed between the question and the answer: answer taken %v (listed as not bound: %v)", name, ok, free)
		}
	}
	for name := range callNotBound {
		if _, ok := typ.FieldByName(name); !ok {
			t.Errorf("callNotBound lists %s, which a call has not", name)
		}
	}
}
