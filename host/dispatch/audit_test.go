package dispatch

import (
	"encoding/json"
	"reflect"
	"strings"
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
	entry := &catalog.Entry{Spec: catalog.ToolSpec{Name: "terminal", Effect: catalog.EffectExec,
		Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin, Toolset: "coding", Plugin: "coding", Version: "1.2.3"}}}
	full := func() (*prepared, Outcome) {
		p := &prepared{entry: entry,
			assess:  &policy.Assessment{Risk: catalog.RiskHigh, Approval: catalog.ApprovalPrompt, ResourceKeys: []string{"fs:/ws/a"}},
			command: &commandPlan{cwd: "/ws", shell: "/bin/sh", timeout: 5 * time.Second, env: []string{"PATH=/bin", "TOKEN=value-not-key"}}}
		out := Outcome{Status: StatusOK, Duration: 1500 * time.Millisecond,
			Approval: approval.Outcome{Allowed: true, Via: approval.ViaPrompt, Scope: approval.ScopeOnce, Reason: "allowed once by test"},
			Views:    redact.Views{Event: redact.EventOf(map[string]any{"tool": "terminal", "call_id": "c1", "arg_keys": []string{"command"}})}}
		return p, out
	}
	bare := func() (*prepared, Outcome) {
		return &prepared{}, Outcome{Status: StatusUnknownTool, Views: redact.Views{Event: redact.EventOf(map[string]any{"tool": "nope"})}}
	}
	for i, build := range []func() (*prepared, Outcome){full, bare, full, bare} {
		p, out := build()
		got, err := auditData(p, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		// What the event's data is, built in a map of its own.
		want := map[string]any{"status": string(out.Status), "duration_ms": out.Duration.Milliseconds()}
		for k, v := range out.Views.Event.Map() {
			want[k] = v
		}
		if out.Approval.Via != "" {
			want["approval"] = map[string]any{"allowed": out.Approval.Allowed, "via": out.Approval.Via, "scope": out.Approval.Scope, "reason": out.Approval.Reason}
		}
		if p.assess != nil {
			want["risk"], want["policy"], want["resource_keys"] = p.assess.Risk.String(), p.assess.Approval.String(), p.auditResourceKeys()
		}
		if p.entry != nil {
			want["source"] = p.entry.Spec.Provenance
			want["effect_class"] = string(p.entry.Spec.Effect)
			if p.assess != nil {
				want["side_effect"] = p.assess.SideEffect(p.entry.Spec.Effect)
			}
		}
		if c := p.command.audit(p.auditSecrets); c != nil {
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

// TestAuditDataDirectMatchesMap: for event views redact.Make makes, the
// directly written data is byte for byte what MarshalData makes of the
// map, with and without each optional field; other views take the map.
func TestAuditDataDirectMatchesMap(t *testing.T) {
	entry := &catalog.Entry{Spec: catalog.ToolSpec{Name: "echo__echo", Effect: catalog.EffectNetwork,
		Provenance: catalog.Provenance{Kind: catalog.SourceMCP, Toolset: "echo<&>", Path: "/ws/agent/mcp/echo.yaml"}}}
	raws := []redact.Raw{
		{Tool: "echo__echo", CallID: "bench", Args: map[string]any{"text": "hello"}, Content: "hello"},
		{Tool: "t\u2028<x>", CallID: "c\"1", Args: map[string]any{"password": "pw-123456", "b": 1.5}, IsError: true,
			ErrorText: "failed with pw-123456", ModelOutput: "m", HasModelOutput: true, Structured: map[string]any{"k": 1.0}},
		{Tool: "t", CallID: "c2", Args: map[string]any{}, DisplayOutput: "shown", HasDisplayOutput: true, Structured: map[string]any{}},
	}
	approvals := []approval.Outcome{{}, {Allowed: true, Via: approval.ViaPrompt, Scope: approval.ScopeOnce, Reason: "allowed <once> & \"quoted\""}}
	assessments := []*policy.Assessment{nil, {Risk: catalog.RiskHigh, Approval: catalog.ApprovalPrompt, ResourceKeys: []string{"fs:/ws/a"}}, {Risk: catalog.RiskLow},
		// Keys jsonenc.Strings must write as encoding/json writes them
		// (HTML, U+2028, invalid UTF-8, quotes, controls), an empty list,
		// and keys holding a value the audit redacts.
		{Risk: catalog.RiskLow, ResourceKeys: []string{}},
		{Risk: catalog.RiskHigh, ResourceKeys: []string{"fs:/ws/<&>\u2028\u2029", "fs:/ws/\"q\"\\\x00\x1f\xff\xfe", "net:k-s3cr3t-9f8e:443", "fs:/ws/ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}}}
	auditSecrets := []redact.Secret{{Source: "binding", Target: "K<&>", Value: "k-s3cr3t-9f8e"}}
	commands := []*commandPlan{nil, {cwd: "/ws", shell: "/bin/sh", timeout: 5 * time.Second, env: []string{"PATH=/bin"}}}
	// The screening an MCP call's event carries (wrapUntrusted): none,
	// clean, and flagged with its signals.
	screenings := []map[string]any{nil,
		{"source": "mcp", "origin": "mcp:echo<&>", "verdict": "clean"},
		{"source": "mcp", "origin": "mcp:e", "verdict": "flagged", "signals": []any{map[string]any{"kind": "override\u2028", "count": 2, "first": 7}}},
	}
	direct := 0
	for _, raw := range raws {
		for _, sc := range screenings {
			views := redact.Make(raw, nil)
			if sc != nil {
				views.Event.Set(screeningKey, sc)
			}
			for _, a := range approvals {
				for _, as := range assessments {
					for _, c := range commands {
						for _, e := range []*catalog.Entry{nil, entry} {
							p := &prepared{entry: e, assess: as, command: c, auditSecrets: auditSecrets}
							out := Outcome{Status: StatusToolError, Duration: 1500 * time.Millisecond, Approval: a, Views: views}
							got, ok, err := auditDataDirect(p, out, nil)
							want, werr := auditDataMap(p, out)
							if !ok || err != nil || werr != nil || string(got) != string(want) {
								t.Fatalf("direct (%v, %v)\n%s\nmap (%v)\n%s", ok, err, got, werr, want)
							}
							if strings.Contains(string(got), "k-s3cr3t-9f8e") || strings.Contains(string(got), "ghp_0123") {
								t.Fatalf("a resource key's secret survived in the audit: %s", got)
							}
							if as != nil {
								// Both ways write the keys with jsonenc: encoding/json is the
								// judge of its bytes.
								keys, _ := json.Marshal(p.auditResourceKeys())
								if !strings.Contains(string(got), `"resource_keys":`+string(keys)+`,`) {
									t.Fatalf("resource keys not as encoding/json writes them (%s): %s", keys, got)
								}
							}
							direct++
						}
					}
				}
			}
		}
	}
	for _, ev := range []map[string]any{
		{"tool": "nope"},
		{"result": redact.FailedText, "redaction_failed": true},
		{"tool": "t", "call_id": "c", "is_error": false, "arg_keys": []string{}, "sizes": map[string]any{}, "extra": 1},
		{"tool": "t", "call_id": "c", "is_error": false, "arg_keys": []string{}, "sizes": map[string]any{}, "secret_sources": []string{}, "extra": 1},
		{"tool": "t", "call_id": "c", "is_error": false, "arg_keys": []string{}, "sizes": map[string]any{}, "secret_sources": []string{}, screeningKey: "x", "extra": 1},
		{"tool": "t", "call_id": "c", "is_error": false, "arg_keys": []string{}, "sizes": map[string]any{}, screeningKey: "x", "extra": 1},
	} {
		if _, ok, _ := auditDataDirect(&prepared{}, Outcome{Views: redact.Views{Event: redact.EventOf(ev)}}, nil); ok {
			t.Errorf("event view %v was written directly", ev)
		}
	}
	// A view Make made, with a field added besides the screening (or
	// instead of it), takes the map, which writes every field.
	for _, add := range [][]string{{"extra"}, {screeningKey, "extra"}, {"tool"}} {
		views := redact.Make(raws[0], nil)
		for _, k := range add {
			views.Event.Set(k, "x")
		}
		p, out := &prepared{}, Outcome{Views: views}
		if _, ok, _ := auditDataDirect(p, out, nil); ok {
			t.Errorf("event view %v was written directly", views.Event.Map())
		}
		if body, err := auditData(p, out, nil); err != nil || !strings.Contains(string(body), `"`+add[len(add)-1]+`":"x"`) {
			t.Errorf("event view %v: audit data %s (%v)", views.Event.Map(), body, err)
		}
	}
	if direct == 0 {
		t.Fatal("nothing was written directly")
	}
}

// BenchmarkAuditData is the audit data of the MCP call-overhead
// benchmark's call, written directly and through the map.
func BenchmarkAuditData(b *testing.B) {
	entry := &catalog.Entry{Spec: catalog.ToolSpec{Name: "echo__echo",
		Provenance: catalog.Provenance{Kind: catalog.SourceMCP, Toolset: "echo", Path: "/ws/agent/mcp/echo.yaml"}}}
	p := &prepared{entry: entry, assess: &policy.Assessment{Risk: catalog.RiskLow, Approval: catalog.ApprovalAuto}}
	out := Outcome{Status: StatusOK, Duration: 150 * time.Microsecond,
		Approval: approval.Outcome{Allowed: true, Via: approval.ViaRule, Scope: approval.ScopeOnce, Reason: "allow:echo__echo"},
		Views:    redact.Make(redact.Raw{Tool: "echo__echo", CallID: "bench", Args: map[string]any{"text": "hello"}, Content: "hello"}, nil)}
	out.Views.Event.Set(screeningKey, map[string]any{"source": "mcp", "origin": "mcp:echo", "verdict": "clean"})
	for name, encode := range map[string]func(*prepared, Outcome) (json.RawMessage, error){
		"direct": func(p *prepared, out Outcome) (json.RawMessage, error) {
			// As finish does: the pooled buffer, given back after use.
			buf := auditBufs.Get().(*[]byte)
			body, err := auditData(p, out, *buf)
			releaseAuditBuf(buf, body)
			return body, err
		},
		"map": auditDataMap,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encode(p, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAppendProvenanceMatchesJSON: a source is written as json.Marshal
// writes the struct; a field added to catalog.Provenance fails this test
// until appendProvenance writes it too.
func TestAppendProvenanceMatchesJSON(t *testing.T) {
	typ := reflect.TypeFor[catalog.Provenance]()
	var tags []string
	for i := range typ.NumField() {
		tags = append(tags, typ.Field(i).Tag.Get("json"))
	}
	if want := []string{"kind", "toolset", "plugin,omitempty", "version,omitempty", "path,omitempty"}; !reflect.DeepEqual(tags, want) {
		t.Fatalf("catalog.Provenance's fields are %q; appendProvenance writes %q", tags, want)
	}
	for _, pv := range []catalog.Provenance{
		{},
		{Kind: catalog.SourceMCP, Toolset: "echo", Path: "/ws/agent/mcp/echo.yaml"},
		{Kind: catalog.SourceBuiltin, Toolset: "coding", Plugin: "coding", Version: "1.2.3"},
		{Kind: "k<&>", Toolset: "t\u2028\"\\", Plugin: "p\xff", Version: "v\n", Path: "é"},
	} {
		want, err := json.Marshal(pv)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendProvenance(nil, &pv); string(got) != string(want) {
			t.Errorf("appendProvenance = %s, json.Marshal = %s", got, want)
		}
	}
}

// TestScreenedEventIsWrittenDirectly: the event view of an MCP call, as
// wrapUntrusted leaves it, takes the direct writer (it once fell to the
// map path on every MCP call when the screening field was added).
func TestScreenedEventIsWrittenDirectly(t *testing.T) {
	entry := &catalog.Entry{Spec: catalog.ToolSpec{Name: "echo__echo",
		Provenance: catalog.Provenance{Kind: catalog.SourceMCP, Toolset: "echo"}}}
	p := &prepared{entry: entry, assess: &policy.Assessment{Risk: catalog.RiskLow, Approval: catalog.ApprovalAuto}}
	views := redact.Make(redact.Raw{Tool: "echo__echo", CallID: "c1", Args: map[string]any{"text": "hello"}, Content: "hello"}, nil)
	(&Turn{}).wrapUntrusted(p, &views, nil)
	if views.Event.Get(screeningKey) == nil {
		t.Fatalf("no %q in the event view %v", screeningKey, views.Event.Map())
	}
	out := Outcome{Status: StatusOK, Views: views}
	got, ok, err := auditDataDirect(p, out, nil)
	want, werr := auditDataMap(p, out)
	if !ok || err != nil || werr != nil || string(got) != string(want) {
		t.Fatalf("direct (%v, %v)\n%s\nmap (%v)\n%s", ok, err, got, werr, want)
	}
}
