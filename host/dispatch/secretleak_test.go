package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
)

// The host redacts a bound value itself, whatever the plugin does: the
// fixture's stream tool writes the value it was bound to its output and
// its result unredacted, and no view, output event or audit record shows
// it. The value is shaped like no known token, so only the exact-value
// redaction of the binding can hide it.
func TestHostRedactsABoundValueThePluginLeaks(t *testing.T) {
	h := newHarness(t)
	p := &answer{a: approval.AllowOnce}
	turn := h.turn(t, []string{"fs.read", "secret.bind:GH_TOKEN"}, p, h.streamSource(t))
	turn.ArtifactRoot = t.TempDir() + "/runtime/artifacts/5e6f7a"
	turn.Commands = CommandConfig{
		HostEnv: []string{"PATH=/usr/bin:/bin"},
		Lookup: func(n string) (string, bool) {
			if n == "GH_TOKEN" {
				return boundValue, true
			}
			return "", false
		},
	}
	var mu sync.Mutex
	var events []Event
	turn.OnEvent = func(_ string, ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }
	out := turn.Call(context.Background(), ToolCall{ID: "leak", Name: "stream",
		Args: []byte(`{"command":"deploy","lines":1,"leak_secrets":true,"secret_bindings":[{"source":"env:GH_TOKEN"}]}`)})
	if !out.OK() || !strings.Contains(out.Views.Model.String(), "leaked GH_TOKEN=<redacted:") {
		t.Fatalf("%s %q; want the leak, redacted", out.Status, out.Views.Model.String())
	}
	views, _ := json.Marshal(out.Views)
	if strings.Contains(string(views), boundValue) {
		t.Errorf("a view holds the bound value: %s", views)
	}
	sawLeak := false
	for _, ev := range events {
		sawLeak = sawLeak || strings.Contains(string(ev.Data), "leaked")
		if strings.Contains(string(ev.Data), boundValue) {
			t.Errorf("an output event holds the bound value: %q", ev.Data)
		}
	}
	if !sawLeak {
		t.Error("no output event carried the leak line")
	}
	evs, err := h.store.Events(runtime.EventQuery{Tool: "stream"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), boundValue) {
			t.Errorf("the audit event holds the bound value: %s", ev.Data)
		}
	}
}
