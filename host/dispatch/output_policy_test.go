package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"demiurge.dev/catalog"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
)

func policyViews(model, body string, isError bool) redact.Views {
	return redact.Views{Model: redact.ModelText(model), Card: redact.Card{Body: body, IsError: isError},
		Event: redact.EventOf(map[string]any{})}
}

func policyEntry(display, model string) *prepared {
	return &prepared{entry: &catalog.Entry{Effective: catalog.Metadata{DisplayPolicy: display, ModelOutputPolicy: model}}}
}

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestDisplayPolicies: full shows the whole body; summary (also when
// unset) bounds it to 200 lines and says what was left out; quiet shows a
// one-line note; an error is shown whole under quiet; the event says
// what a policy changed.
func TestDisplayPolicies(t *testing.T) {
	long := lines(300)
	for _, tc := range []struct {
		policy   string
		isError  bool
		wantBody func(string) bool
		changed  bool
	}{
		{catalog.CardFull, false, func(b string) bool { return b == long }, false},
		{catalog.CardSummary, false, func(b string) bool {
			return strings.HasPrefix(b, lines(200)) && strings.HasSuffix(b, "… 100 more lines (900 bytes) not shown: display_policy summary; the audit record holds them")
		}, true},
		{"", false, func(b string) bool { return strings.HasPrefix(b, lines(200)) && !strings.Contains(b, "line 201\n") }, true},
		{catalog.CardQuiet, false, func(b string) bool { return b == "(2592 bytes of output not shown: display_policy quiet)" }, true},
		{catalog.CardQuiet, true, func(b string) bool { return b == long }, false},
	} {
		v := policyViews(long, long, tc.isError)
		applyOutputPolicies(policyEntry(tc.policy, ""), &v)
		if !tc.wantBody(v.Card.Body) {
			t.Errorf("%q (error %v): card body %q", tc.policy, tc.isError, v.Card.Body)
		}
		if v.Model.String() != long {
			t.Errorf("%q: the display policy changed the model view", tc.policy)
		}
		if has := v.Event.Get("output_policy") != nil; has != tc.changed {
			t.Errorf("%q (error %v): event %v", tc.policy, tc.isError, v.Event.Map())
		}
	}
	// A short body is not cut, and a summary never splits a UTF-8 sequence.
	v := policyViews("x", "short\n", false)
	applyOutputPolicies(policyEntry(catalog.CardSummary, ""), &v)
	if v.Card.Body != "short\n" || v.Event.Get("output_policy") != nil {
		t.Fatalf("short body: %q %v", v.Card.Body, v.Event.Map())
	}
	// No newline at all, and the byte bound falls inside an "é".
	wide := "x" + strings.Repeat("é", catalog.CardSummaryBytes)
	v = policyViews("x", wide, false)
	applyOutputPolicies(policyEntry(catalog.CardSummary, ""), &v)
	head, _, _ := strings.Cut(v.Card.Body, "\n…")
	if !strings.HasPrefix(wide, head) || len(head) > catalog.CardSummaryBytes || !utf8.ValidString(head) {
		t.Fatalf("wide body cut at %d bytes", len(head))
	}
}

// TestModelOutputPolicies: content keeps the model view; display gives
// the model the card's body (before it is bounded); status gives only a
// note of success and size, except for an error, which the model sees.
func TestModelOutputPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy, want string
		isError      bool
		hostNote     bool
	}{
		{catalog.ModelContent, "for the model", false, false},
		{"", "for the model", false, false},
		{catalog.ModelDisplay, lines(300), false, false},
		{catalog.ModelStatus, "the call succeeded; its 13 bytes of output are not shown to the model (model_output_policy: status)", false, true},
		{catalog.ModelStatus, "for the model", true, false},
	} {
		v := policyViews("for the model", lines(300), tc.isError)
		note := applyOutputPolicies(policyEntry(catalog.CardFull, tc.policy), &v)
		if v.Model.String() != tc.want || note != tc.hostNote {
			t.Errorf("%q (error %v): model %q, host note %v", tc.policy, tc.isError, v.Model.String(), note)
		}
	}
}

// TestOutputPoliciesThroughThePlugin: a real plugin's long result under
// the default display policy reaches the card bounded, the model whole,
// and the audit event says what was left out.
func TestOutputPoliciesThroughThePlugin(t *testing.T) {
	h := newHarness(t)
	meta := func(tool string) catalog.Metadata {
		m := autoMeta(tool)
		m.ModelOutputPolicy = catalog.ModelContent
		return m
	}
	turn := h.turn(t, []string{"fs.read"}, nil, h.source(t, "fixture", meta))
	text := lines(300)
	args, _ := json.Marshal(map[string]string{"text": text})
	out := turn.Call(context.Background(), ToolCall{ID: "p1", Name: "echo", Args: args})
	if !out.OK() || out.Views.Model.String() != text || !strings.Contains(out.Views.Card.Body, "… 100 more lines") {
		t.Fatalf("%s: model %d bytes, card %q", out.Status, len(out.Views.Model.String()), out.Views.Card.Body[max(0, len(out.Views.Card.Body)-120):])
	}
	evs, err := h.store.Events(runtime.EventQuery{Tool: "echo"})
	if err != nil || len(evs) != 1 || !strings.Contains(string(evs[0].Data), `"output_policy":{"card_hidden_bytes":900,"display_policy":"summary"}`) {
		t.Fatalf("%v %v", evs, err)
	}
}
