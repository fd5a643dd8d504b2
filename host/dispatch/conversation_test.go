package dispatch

import (
	"encoding/json"
	"errors"
	"testing"

	"demiurge.dev/host/plugins"
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
