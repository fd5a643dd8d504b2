package dispatch

import (
	"encoding/json"
	"errors"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/shared/toolsetv1"
)

// A session_search request the plugin sends must be the call that was
// approved: no operator scope, other session or query slipped in.
func TestMatchesApproved(t *testing.T) {
	args := map[string]any{"query": "parser", "conversation_id": "ses_a", "limit": json.Number("5")}
	same := &toolsetv1.SessionSearchRequest{Query: "parser", SessionId: "ses_a", Limit: 5}
	if err := matchesApproved(same, args); err != nil {
		t.Fatal(err)
	}
	for name, req := range map[string]*toolsetv1.SessionSearchRequest{
		"operator scope added": {Query: "parser", SessionId: "ses_a", Limit: 5, OperatorScope: true, Reason: "x"},
		"other session":        {Query: "parser", SessionId: "ses_b", Limit: 5},
		"other query":          {Query: "password", SessionId: "ses_a", Limit: 5},
		"other limit":          {Query: "parser", SessionId: "ses_a", Limit: 50},
		"reason added":         {Query: "parser", SessionId: "ses_a", Limit: 5, Reason: "x"},
	} {
		if err := matchesApproved(req, args); !errors.Is(err, plugins.ErrNotPermitted) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	op := map[string]any{"scope": "operator", "reason": "because"}
	if err := matchesApproved(&toolsetv1.SessionSearchRequest{OperatorScope: true, Reason: "because"}, op); err != nil {
		t.Fatal(err)
	}
	if err := matchesApproved(&toolsetv1.SessionSearchRequest{}, op); err == nil {
		t.Fatal("an approved operator scope dropped silently was accepted")
	}
}

func TestLocalOperator(t *testing.T) {
	for p, want := range map[string]bool{"local": true, "local:alice": true, "localhost": false, "channel:chat:1": false, "": false, "xlocal:a": false} {
		if LocalOperator(p) != want {
			t.Errorf("LocalOperator(%q) = %v", p, !want)
		}
	}
}

// No history is read unless the call holds session.read and its approval
// was resolved from a prompt at medium risk or more: whatever metadata a
// registry, a plugin or a core gave the tool.
func TestHistoryAdmitted(t *testing.T) {
	withRead, err := policy.NewCapabilitySet([]string{"session.read"})
	if err != nil {
		t.Fatal(err)
	}
	without, _ := policy.NewCapabilitySet([]string{"fs.read"})
	type c struct {
		name    string
		cap     string
		caps    policy.CapabilitySet
		policy  catalog.ApprovalPolicy
		risk    catalog.Risk
		verdict approval.Outcome
		want    bool
	}
	allowedByRule := approval.Outcome{Allowed: true, Via: approval.ViaRule}
	for _, tt := range []c{
		{"prompt, allowed by a rule", "session.read", withRead, catalog.ApprovalPrompt, catalog.RiskMedium, allowedByRule, true},
		{"prompt, answered", "session.read", withRead, catalog.ApprovalPrompt, catalog.RiskHigh, approval.Outcome{Allowed: true, Via: approval.ViaPrompt}, true},
		{"auto policy", "session.read", withRead, catalog.ApprovalAuto, catalog.RiskMedium, approval.Outcome{Allowed: true, Via: approval.ViaAuto}, false},
		{"auto verdict", "session.read", withRead, catalog.ApprovalPrompt, catalog.RiskMedium, approval.Outcome{Allowed: true, Via: approval.ViaAuto}, false},
		{"low risk", "session.read", withRead, catalog.ApprovalPrompt, catalog.RiskLow, allowedByRule, false},
		{"denied", "session.read", withRead, catalog.ApprovalPrompt, catalog.RiskMedium, approval.Outcome{Via: approval.ViaDeny}, false},
		{"no session.read grant", "session.read", without, catalog.ApprovalPrompt, catalog.RiskMedium, allowedByRule, false},
		{"other gate", "fs.read", withRead, catalog.ApprovalPrompt, catalog.RiskMedium, allowedByRule, false},
	} {
		p := &prepared{
			entry:  &catalog.Entry{Effective: catalog.Metadata{Capability: tt.cap}},
			assess: &policy.Assessment{Approval: tt.policy, Risk: tt.risk},
		}
		turn := &Turn{Authority: policy.Authority{Capabilities: tt.caps}}
		if got := historyAdmitted(p, tt.verdict, turn); got != tt.want {
			t.Errorf("%s: admitted = %v, want %v", tt.name, got, tt.want)
		}
	}
}
