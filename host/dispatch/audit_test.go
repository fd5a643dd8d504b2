package dispatch

import (
	"encoding/json"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
)

// TestAuditDataIsFreshForEveryCall: the maps an event is built in are
// reused, and no call's event carries a field of the one before; each
// body is the bytes the event's own map encodes to.
func TestAuditDataIsFreshForEveryCall(t *testing.T) {
	entry := &catalog.Entry{Spec: catalog.ToolSpec{Name: "terminal",
		Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin, Toolset: "coding", Plugin: "coding", Version: "1.2.3"}}}
	full := func() (*prepared, Outcome) {
		p := &prepared{entry: entry,
			assess:  &policy.Assessment{Risk: catalog.RiskHigh, Approval: catalog.ApprovalPrompt, ResourceKeys: []string{"fs:/ws/a"}},
			command: &commandPlan{cwd: "/ws", shell: "/bin/sh", timeout: 5 * time.Second, env: []string{"PATH=/bin", "TOKEN=value-not-key"}}}
		out := Outcome{Status: StatusOK, Duration: 1500 * time.Millisecond,
			Approval: approval.Outcome{Allowed: true, Via: approval.ViaPrompt, Scope: approval.ScopeOnce, Reason: "allowed once by test"},
			Views:    redact.Views{Event: map[string]any{"tool": "terminal", "call_id": "c1", "arg_keys": []string{"command"}}}}
		return p, out
	}
	bare := func() (*prepared, Outcome) {
		return &prepared{}, Outcome{Status: StatusUnknownTool, Views: redact.Views{Event: map[string]any{"tool": "nope"}}}
	}
	for i, build := range []func() (*prepared, Outcome){full, bare, full, bare} {
		p, out := build()
		got, err := auditData(p, out)
		if err != nil {
			t.Fatal(err)
		}
		// What the event's data is, built in a map of its own.
		want := map[string]any{"status": string(out.Status), "duration_ms": out.Duration.Milliseconds()}
		for k, v := range out.Views.Event {
			want[k] = v
		}
		if out.Approval.Via != "" {
			want["approval"] = map[string]any{"allowed": out.Approval.Allowed, "via": out.Approval.Via, "scope": out.Approval.Scope, "reason": out.Approval.Reason}
		}
		if p.assess != nil {
			want["risk"], want["policy"], want["resource_keys"] = p.assess.Risk.String(), p.assess.Approval.String(), p.assess.ResourceKeys
		}
		if p.entry != nil {
			want["source"] = p.entry.Spec.Provenance
		}
		if c := p.command.audit(); c != nil {
			want["command"] = c
		}
		wantBody, err := runtime.MarshalData(want)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(wantBody) {
			t.Fatalf("call %d: event data\n%s\nwant\n%s", i, got, wantBody)
		}
		var back map[string]any
		if err := json.Unmarshal(got, &back); err != nil || len(back) != len(want) {
			t.Fatalf("call %d: %d fields, want %d (%v)", i, len(back), len(want), err)
		}
	}
}
