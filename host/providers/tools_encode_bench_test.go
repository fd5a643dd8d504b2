package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

// benchToolDefs are twenty tool definitions of about the coding
// toolset's size.
func benchToolDefs() []ToolDef {
	var defs []ToolDef
	for i := range 20 {
		defs = append(defs, ToolDef{Name: fmt.Sprintf("tool_%d", i), Description: "Read a file of the workspace, a range of its lines, with line numbers.",
			Schema: json.RawMessage(`{"additionalProperties":false,"properties":{"limit":{"description":"How many lines at most.","minimum":1,"type":"integer"},"offset":{"description":"The first line, from 1.","minimum":1,"type":"integer"},"path":{"description":"The file, relative to the workspace.","type":"string"}},"required":["path"],"type":"object"}`)})
	}
	return defs
}

// BenchmarkToolsInRequestEncoding is the SDK encoding a step's request
// body with twenty kept tool definitions, for the Chat Completions and
// Responses providers: what the kept encodings leave of the tools' cost
// per step. Gemini's SDK encodes the request inside its call, so its case
// is a whole step against the scripted server on loopback.
func BenchmarkToolsInRequestEncoding(b *testing.B) {
	req := Request{System: "be brief", Tools: benchToolDefs(), Messages: []Message{{Role: RoleUser, Text: "hi"}}}
	b.Run("chat", func(b *testing.B) {
		p := newOpenAIChat(base{cfg: Config{Name: "m"}})
		for b.Loop() {
			if _, err := p.params(req).MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("responses", func(b *testing.B) {
		p := newOpenAIResponses(base{cfg: Config{Name: "m"}})
		for b.Loop() {
			if _, err := p.params(req).MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gemini-step", func(b *testing.B) {
		srv := benchServer(b, pt.KindGemini)
		p := benchProvider(b, ProviderGemini, srv.URL)
		ctx := context.Background()
		for b.Loop() {
			if _, err := p.Stream(ctx, req, func(Delta) {}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
