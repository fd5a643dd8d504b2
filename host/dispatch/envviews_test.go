package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
)

// An environment overlay's values appear in no view an operator or the
// audit sees: not on the approval card (its preview included), not in the
// card's args, the record, the event, the debug view or the stored audit
// event. Only its keys do (seed 000: approval and event views expose keys
// only). The values are shaped like nothing the token table knows, so
// only the hiding can keep them out.
func TestEnvOverlayValuesAreHiddenFromEveryView(t *testing.T) {
	h := newHarness(t)
	for _, value := range []string{"barvalue", "plain words with spaces", "q7Zp~nothing!like(a)token", "=;ZqZq"} {
		t.Run(value, func(t *testing.T) {
			var card bytes.Buffer
			term := &approval.Terminal{In: strings.NewReader("o\n"), Out: &card}
			turn, _ := h.terminalTurn(t, term)
			args, _ := json.Marshal(map[string]any{"command": "true", "env": map[string]string{"OVERLAY_KEY": value}})
			out := turn.Call(context.Background(), ToolCall{ID: "env", Name: "terminal", Args: args})
			if !out.OK() {
				t.Fatalf("%s %s", out.Status, out.Views.Model.String())
			}
			if !strings.Contains(card.String(), "OVERLAY_KEY") {
				t.Errorf("the approval card does not name the overlay's key:\n%s", card.String())
			}
			views := map[string]string{"approval card": card.String(), "card args": out.Views.Card.Args}
			for name, m := range map[string]map[string]any{"record": out.Views.Record(), "event": out.Views.Event.Map(), "debug": out.Views.Debug()} {
				b, _ := json.Marshal(m)
				views[name] = string(b)
			}
			evs, err := h.store.Events(runtime.EventQuery{})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				views["audit event"] += string(ev.Data)
			}
			for name, v := range views {
				if strings.Contains(v, value) {
					t.Errorf("the %s shows the overlay's value %q:\n%s", name, value, v)
				}
			}
		})
	}
}

// A binding's target is a name, not a secret: the bound value shows as
// <redacted:TARGET>, the command text keeps $TARGET, and a refused
// target is named in the error.
func TestBindingTargetNamesStayReadable(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	out := turn.Call(context.Background(), ToolCall{ID: "b", Name: "terminal",
		Args: []byte(`{"command":"echo $DEPLOY","secret_bindings":[{"source":"env:GH_TOKEN","target":"DEPLOY"}]}`)})
	if !out.OK() {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	for name, v := range map[string]string{"model": out.Views.Model.String(), "card": out.Views.Card.Body, "card args": out.Views.Card.Args} {
		if strings.Contains(v, boundValue) || strings.Contains(v, "<redacted:<redacted") || strings.Contains(v, "redacted:secret_bindings") {
			t.Errorf("%s view: %q", name, v)
		}
	}
	if !strings.Contains(out.Views.Model.String(), "<redacted:DEPLOY>") {
		t.Errorf("model view does not show the value as <redacted:DEPLOY>: %q", out.Views.Model.String())
	}
	if !strings.Contains(out.Views.Card.Body, "$ echo $DEPLOY") {
		t.Errorf("card does not show the command as written: %q", out.Views.Card.Body)
	}

	for _, target := range []string{"LD_PRELOAD", "BASH_ENV", "PATH"} {
		out := turn.Call(context.Background(), ToolCall{ID: "r", Name: "terminal",
			Args: []byte(`{"command":"true","secret_bindings":[{"source":"env:GH_TOKEN","target":"` + target + `"}]}`)})
		if out.OK() || !strings.Contains(out.Views.Model.String(), "target "+target+" is refused") {
			t.Errorf("target %s: %s %q, want a refusal that names it", target, out.Status, out.Views.Model.String())
		}
	}
}
