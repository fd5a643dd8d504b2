package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
)

// A secret in a call's arguments that the plugin echoes back unredacted
// reaches no view: dispatch searches the arguments once per call and the
// views must hide what that search found. The value is shaped like no
// known token, so only the argument search can hide it.
func TestHostRedactsAnArgumentSecretThePluginEchoes(t *testing.T) {
	const value = "plainvalue-kq7zmw"
	h := newHarness(t)
	turn := h.turn(t, []string{"fs.read"}, &answer{a: approval.AllowOnce}, h.streamSource(t))
	turn.ArtifactRoot = t.TempDir() + "/runtime/artifacts/5e6f7a"
	turn.Commands = CommandConfig{HostEnv: []string{"PATH=/usr/bin:/bin"}}
	out := turn.Call(context.Background(), ToolCall{ID: "echo", Name: "stream",
		Args: []byte(`{"command":"deploy --password=` + value + `","lines":1}`)})
	if all, _ := json.Marshal(out.Views); !out.OK() || !strings.Contains(string(all), "line 0 of deploy") {
		t.Logf("%s", all)
		t.Fatalf("%s %q; want the echoed command", out.Status, out.Views.Model.String())
	}
	views, _ := json.Marshal(out.Views)
	if strings.Contains(string(views), value) {
		t.Fatalf("a view holds the argument's secret: %s", views)
	}
}
