package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
)

// evolveCall is an evolve_core call; toolset "installed" is a third-party
// toolset's tool of that name and declaration.
func evolveCall(args map[string]any, toolset string) *prepared {
	raw, _ := json.Marshal(args)
	kind := catalog.SourceBuiltin
	if toolset == "installed" {
		kind = catalog.SourceInstalled
	}
	return &prepared{
		call: ToolCall{ID: "c1", Name: "evolve_core"},
		entry: &catalog.Entry{Spec: catalog.ToolSpec{Name: "evolve_core", HostServices: []string{catalog.ServiceCoreControl},
			Provenance: catalog.Provenance{Kind: kind, Toolset: toolset}}},
		args: args, argsRaw: raw,
	}
}

// TestEvolveActionKey: an evolve_core call's approval is keyed by its
// action and run (and a promote's mcp-review token), so that no approval
// of one covers another; a tool of the same name from another toolset
// gets no key and no core hook.
func TestEvolveActionKey(t *testing.T) {
	promoteA := evolveCall(map[string]any{"action": "promote", "run_id": "run_a"}, "demiurge_control")
	for _, tc := range []struct {
		p    *prepared
		want string
	}{
		{evolveCall(map[string]any{"action": "start", "goal": "g", "background": true}, "demiurge_control"), "start"},
		{promoteA, "promote/run_a"},
		{evolveCall(map[string]any{"action": "discard", "run_id": "run_a"}, "demiurge_control"), "discard/run_a"},
		{evolveCall(map[string]any{"action": "promote", "run_id": "run_a"}, "installed"), ""},
		{evolveCall(map[string]any{"revision": "live~1"}, "demiurge_control"), ""}, // rollback_core: no action
	} {
		if got := evolveAction(tc.p); got != tc.want {
			t.Errorf("evolveAction(%v) = %q, want %q", tc.p.args, got, tc.want)
		}
	}
	fps := map[string]string{}
	for name, p := range map[string]*prepared{
		"promote a":       promoteA,
		"promote b":       evolveCall(map[string]any{"action": "promote", "run_id": "run_b"}, "demiurge_control"),
		"review a":        evolveCall(map[string]any{"action": "review", "run_id": "run_a"}, "demiurge_control"),
		"promote a token": evolveCall(map[string]any{"action": "promote", "run_id": "run_a", "mcp_review": "mcp-review:00"}, "demiurge_control"),
	} {
		fp := evolveFingerprint(p, "same-assessment")
		if other, dup := fps[fp]; dup {
			t.Errorf("%s and %s share an approval fingerprint", name, other)
		}
		fps[fp] = name
	}
	if !evolveBackground(evolveCall(map[string]any{"action": "start", "goal": "g", "background": true}, "demiurge_control")) ||
		evolveBackground(evolveCall(map[string]any{"action": "review", "run_id": "r", "background": true}, "demiurge_control")) {
		t.Error("only a start runs in the background")
	}
}

// TestCoreCallOperator: only the operator's own answer or rule marks a
// core call as the operator's; a session allow does not.
func TestCoreCallOperator(t *testing.T) {
	for via, want := range map[string]bool{approval.ViaPrompt: true, approval.ViaRule: true, approval.ViaSession: false, approval.ViaAuto: false, approval.ViaLease: false} {
		var got CoreCall
		turn := &Turn{Core: func(_ context.Context, c CoreCall) (string, error) { got = c; return "{}", nil }}
		var hk plugins.Hooks
		turn.coreHook(evolveCall(map[string]any{"action": "promote", "run_id": "run_a"}, "demiurge_control"), approval.Outcome{Allowed: true, Via: via}, &hk)
		if hk.Core == nil {
			t.Fatal("no core hook")
		}
		if _, err := hk.Core(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got.Operator != want {
			t.Errorf("via %s: Operator = %v, want %v", via, got.Operator, want)
		}
	}
}

// TestACoreCallsCardNamesWhatItMovesAndBindsTheCall: the host's CoreCard
// puts what a promote would move on its approval card (the reviewed
// commit, how it widens authority), folds it into the fingerprint (a
// session allow of one reviewed commit covers no other), and the call
// carries it to the host, which refuses a run reviewed again since.
func TestACoreCallsCardNamesWhatItMovesAndBindsTheCall(t *testing.T) {
	reviewed := "c1"
	turn := &Turn{CoreCard: func(c CoreCall) ([]string, string) {
		if c.Tool != "evolve_core" || c.Principal != "alice" {
			return nil, ""
		}
		return []string{"promotes run run_a: its reviewed commit " + reviewed, "widens authority: core default: grants network.fetch"}, reviewed
	}}
	turn.Authority.Principal = "alice"
	var got CoreCall
	turn.Core = func(_ context.Context, c CoreCall) (string, error) { got = c; return "{}", nil }
	call := func() *prepared {
		p := evolveCall(map[string]any{"action": "promote", "run_id": "run_a"}, "demiurge_control")
		p.assess = &policy.Assessment{Fingerprint: "f"}
		return p
	}
	p := call()
	req := turn.approvalRequest(p)
	if strings.Join(req.Reasons, "\n") != "promotes run run_a: its reviewed commit c1\nwidens authority: core default: grants network.fetch" {
		t.Fatalf("card reasons %q", req.Reasons)
	}
	var hk plugins.Hooks
	turn.coreHook(p, approval.Outcome{Allowed: true, Via: approval.ViaPrompt}, &hk)
	if _, err := hk.Core(context.Background()); err != nil || got.Reviewed != "c1" {
		t.Fatalf("the call carries %q (%v), want the card's c1", got.Reviewed, err)
	}
	reviewed = "c2"
	if other := turn.approvalRequest(call()); other.Fingerprint == req.Fingerprint {
		t.Fatal("the promote of another reviewed commit shares the fingerprint")
	}
	plain := &Turn{}
	if r := plain.approvalRequest(call()); len(r.Reasons) != 0 || r.Fingerprint == req.Fingerprint {
		t.Fatalf("without a card hook: reasons %q, fingerprint %q", r.Reasons, r.Fingerprint)
	}
}
