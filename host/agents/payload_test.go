package agents_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/dispatch"
	pt "demiurge.dev/host/providers/providertest"
)

func delegateCall(turnID, args string) dispatch.DelegateCall {
	return dispatch.DelegateCall{Turn: turnID, CallID: "call_1", Args: json.RawMessage(args)}
}

// The model's payload is bounded and carries none of the operator-only
// metadata (requested controls, resolved pipeline, parent, root).
func TestModelPayloadIsBoundedAndHidesMetadata(t *testing.T) {
	long := strings.Repeat("y", 10000)
	f := newFixture(t, agents.Limits{}, []pt.Step{child("answer long", pt.Step{Text: []string{long}})})
	out, err := f.gate.Delegate(context.Background(), f.h.Session(), delegateCall("turn_p", `{"goal":"answer long","notify_policy":"wait","tools":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"requested", "resolved", "parent", "root", "goal", "principal", "session"} {
		if _, ok := p[k]; ok {
			t.Errorf("payload has operator-only %q: %s", k, out[:200])
		}
	}
	if a, _ := p["answer"].(string); len([]rune(a)) > dispatch.MaxChildAnswer+1 || p["status"] != "completed" {
		t.Fatalf("answer of %d runes, status %v", len([]rune(a)), p["status"])
	}
}

func TestBadArgumentsAreRefusals(t *testing.T) {
	f := newFixture(t, agents.Limits{}, nil)
	for args, want := range map[string]string{
		`{}`:                                       "goal is required",
		`{"goal":"x","context_mode":"fork"}`:       "the only mode is isolated",
		`{"goal":"x","notify_policy":"later"}`:     "use return_to_parent, silent or wait",
		`{"goal":"x","max_depth":-1}`:              "max_depth must be 0 or more",
		`{"goal":"x","tools":"everything"}`:        `give "all", "none"`,
		`{"goal":"x","tools":["read_file","all"]}`: "a word of its own",
		`{"goal":"x","input_slots":["nope"]}`:      `input_slots: "nope" not in the child core's active pipeline`,
		`{"goal":"x","output_slots":"most"}`:       `output_slots "most"`,
		`{"goal":"x","core_id":"other"}`:           `unknown core_id "other": the core repository's revision `,
		`{"goal":"x","core_id":"../default"}`:      `unknown core_id "../default": the core repository's revision `,
		`{"goal":"x","capabilities":["fs.write"]}`: "unknown field",
	} {
		_, err := f.gate.Delegate(context.Background(), f.h.Session(), delegateCall("turn_b", args))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", args, err, want)
		}
	}
}

// use_bootstrap false (the default) injects no bootstrap snapshot; true
// injects the child's own (the workspace's AGENTS.md).
func TestUseBootstrap(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{
		child("plain child", pt.Step{Text: []string{"ok"}}),
		child("bootstrapped child", pt.Step{Text: []string{"ok"}}),
	})
	f.write(t, "AGENTS.md", "Marker 7c1f: the project's notes.\n")
	for _, args := range []string{`{"goal":"plain child","notify_policy":"wait"}`, `{"goal":"bootstrapped child","use_bootstrap":true,"notify_policy":"wait"}`} {
		if out, err := f.gate.Delegate(context.Background(), f.h.Session(), delegateCall("turn_bs", args)); err != nil || !strings.Contains(out, `"status":"completed"`) {
			t.Fatalf("%s: %s %v", args, out, err)
		}
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 || strings.Contains(string(reqs[0].Body), "Marker 7c1f") || !strings.Contains(string(reqs[1].Body), "Marker 7c1f") {
		t.Fatalf("snapshot in the plain child: %v; in the bootstrapped one: %v", strings.Contains(string(reqs[0].Body), "Marker 7c1f"), strings.Contains(string(reqs[len(reqs)-1].Body), "Marker 7c1f"))
	}
}
