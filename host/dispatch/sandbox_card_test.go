package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// cardRecorder answers with a and keeps the card text of each request.
type cardRecorder struct {
	a     approval.Answer
	cards []string
}

func (p *cardRecorder) Name() string { return "recorder" }
func (p *cardRecorder) Ask(_ context.Context, req approval.Request) (approval.Answer, error) {
	p.cards = append(p.cards, approval.CardText(req))
	return p.a, nil
}

// TestApprovalCardStatesSandboxAndNetwork: the card of a command says the
// sandbox mode it will run in and whether it can reach the network; an
// approved command then runs in exactly that mode.
func TestApprovalCardStatesSandboxAndNetwork(t *testing.T) {
	h := newHarness(t)
	helper := buildSandboxHelper(t)
	for _, tc := range []struct {
		name   string
		cfg    sandboxing.Config
		args   string
		answer approval.Answer
		card   string
		ran    string // the record's enforced mode, when the call ran
	}{
		{"workspace-write is offline", sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper},
			`{"command":"echo hi > a.txt"}`, approval.AllowOnce,
			"sandbox  workspace-write, offline: it writes only in the workspace, and network requests will fail", "workspace-write"},
		{"network asked", sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper},
			`{"command":"echo hi","network":true}`, approval.AllowOnce,
			"sandbox  network: it writes only in the workspace, and it CAN reach the network", "network"},
		{"read-only has no network", sandboxing.Config{Mode: sandbox.ReadOnly, Helper: helper},
			`{"command":"echo hi","network":true}`, approval.Deny,
			"sandbox  read-only: network access refused", ""},
		{"no helper", sandboxing.Config{Mode: sandbox.WorkspaceWrite},
			`{"command":"echo hi > b.txt"}`, approval.Deny,
			"runs UNCONFINED, with your file access and the network", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &cardRecorder{a: tc.answer}
			turn, _ := h.terminalTurn(t, p)
			turn.Sandbox = tc.cfg
			out := turn.Call(context.Background(), ToolCall{ID: "c", Name: "terminal", Args: []byte(tc.args)})
			if len(p.cards) != 1 || !strings.Contains(p.cards[0], tc.card) {
				t.Fatalf("cards %q, want one with %q", p.cards, tc.card)
			}
			if tc.ran != "" {
				rec, _ := json.Marshal(out.Views.Record())
				if !out.OK() || !strings.Contains(string(rec), `"sandbox":"`+tc.ran+`"`) {
					t.Errorf("ran %s, record %s; the card said %s", out.Status, rec, tc.ran)
				}
			}
		})
	}
}
