package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
)

// recordingDeny keeps the request it was asked about and denies it.
type recordingDeny struct{ req approval.Request }

func (p *recordingDeny) Name() string { return "recording" }
func (p *recordingDeny) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	p.req = r
	return approval.Deny, nil
}

// TestURLPreviewShowsOnlyTheOrigin: before approval a URL argument is
// reduced to its credential-free origin in the preview, the subjects and
// the reasons.
func TestURLPreviewShowsOnlyTheOrigin(t *testing.T) {
	h := newHarness(t)
	src := catalog.Source{Kind: catalog.SourceBuiltin, Name: "coding", Binding: PluginAdapter{Manager: h.m, Toolset: "coding"},
		Tools: []catalog.ToolSpec{{
			Name: "web_extract", Description: "fetch a page", Effect: catalog.EffectNetwork,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"},"max_chars":{"type":"integer"}},"required":["url"]}`),
			Metadata:    catalog.Metadata{Risk: catalog.RiskMedium, Capability: "network.fetch", ApprovalPolicy: catalog.ApprovalPrompt},
			Subjects:    []catalog.Subject{{Kind: catalog.SubjectURL, Arg: "url"}},
			Provenance:  catalog.Provenance{Kind: catalog.SourceBuiltin, Toolset: "coding"},
		}}}
	p := &recordingDeny{}
	turn := h.turn(t, []string{"network.fetch"}, p, src)
	out := turn.Call(context.Background(), ToolCall{ID: "u1", Name: "web_extract",
		Args: []byte(`{"url":"https://Docs.Example.org/private/page?token=abc#frag","max_chars":500}`)})
	if out.Status != StatusDenied || p.req.Tool != "web_extract" {
		t.Fatalf("status %s, asked about %q: %s", out.Status, p.req.Tool, out.Views.Model.String())
	}
	if !strings.Contains(p.req.Preview, "https://docs.example.org") || !strings.Contains(p.req.Preview, "500") {
		t.Errorf("preview %q; want the origin and the other arguments", p.req.Preview)
	}
	shown := p.req.Preview + strings.Join(p.req.Reasons, "\n")
	for _, s := range p.req.Subjects {
		shown += s.Value
	}
	for _, secret := range []string{"private", "token", "frag"} {
		if strings.Contains(shown, secret) {
			t.Errorf("the approval request shows %q: %s", secret, shown)
		}
	}

	// Userinfo is denied by policy before anyone is asked, and the
	// message names the origin only.
	p.req = approval.Request{}
	out = turn.Call(context.Background(), ToolCall{ID: "u2", Name: "web_extract",
		Args: []byte(`{"url":"https://alice:hunter2@docs.example.org/private"}`)})
	if out.Status != StatusDenied || p.req.Tool != "" {
		t.Fatalf("userinfo: status %s, asked about %q", out.Status, p.req.Tool)
	}
	if m := string(out.Views.Model.String()); strings.Contains(m, "hunter2") || strings.Contains(m, "alice") || strings.Contains(m, "private") {
		t.Errorf("denial shows userinfo or path: %s", m)
	}
}
