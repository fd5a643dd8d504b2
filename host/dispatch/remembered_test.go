package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
)

// TestBoundSecretRememberedForTheSession: a value bound to one approved
// command that the command left in a file (a build script dumping its
// environment to a log) is redacted in every later call of the session,
// in its views and its live output, though that call binds nothing.
func TestBoundSecretRememberedForTheSession(t *testing.T) {
	h := newHarness(t)
	turn, events := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	turn.Remembered = &RememberedSecrets{}
	bind := `{"command":"env > build.log; echo dumped","secret_bindings":[{"source":"env:GH_TOKEN"}]}`
	if out := turn.Call(context.Background(), ToolCall{ID: "r1", Name: "terminal", Args: []byte(bind)}); !out.OK() {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	*events = nil
	out := turn.Call(context.Background(), ToolCall{ID: "r2", Name: "terminal", Args: []byte(`{"command":"cat build.log"}`)})
	if !out.OK() || !strings.Contains(out.Views.Model.String(), "GH_TOKEN=<redacted:GH_TOKEN>") {
		t.Fatalf("later call: %s %q", out.Status, out.Views.Model.String())
	}
	views, _ := json.Marshal(out.Views)
	if strings.Contains(string(views), boundValue) {
		t.Fatalf("a later call's view holds the value bound earlier: %s", views)
	}
	for _, ev := range *events {
		if strings.Contains(string(ev.Data), boundValue) {
			t.Fatalf("a later call's live output holds the value bound earlier: %q", ev.Data)
		}
	}
}
