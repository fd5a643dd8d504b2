package providers

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	pt "demiurge.dev/host/providers/providertest"
	"google.golang.org/genai"
)

// The Gemini provider keeps each tool's declaration with its schema
// encoded once; the request bytes on the wire must be those the SDK sends
// for a declaration built from the definition itself (the schema decoded
// into a map), on the first request and the next ones, after a definition
// changed under the same name, and in another order.
func TestGeminiKeptToolDeclarationsSendTheSameBytes(t *testing.T) {
	defs := []ToolDef{
		{Name: "read_file", Description: "Read a file.\nLines <b> & more \u2028.", Schema: json.RawMessage(`{"additionalProperties":false,"properties":{"offset":{"minimum":1e21,"type":"integer"},"path":{"type":"string"}},"required":["path"],"type":"object"}`)},
		{Name: "empty", Description: "", Schema: nil},
	}
	changed := []ToolDef{{Name: "read_file", Description: "Read a file.", Schema: json.RawMessage(`{"properties":{"p":{"type":"string"}},"type":"object"}`)}}
	reversed := []ToolDef{defs[1], defs[0]}
	h := newHarness(t, ProviderGemini, pt.Step{Text: []string{"ok"}})
	h.srv.RepeatLast()
	p := h.p.(*geminiProvider)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i, tools := range [][]ToolDef{defs, defs, changed, defs, reversed, defs} {
		req := hello()
		req.Tools = tools
		if _, _, err := h.stream(t, req); err != nil {
			t.Fatal(err)
		}
		// The reference: the same request, each declaration built afresh.
		contents, cfg := p.params(req)
		fresh := &genai.Tool{}
		for _, d := range tools {
			fresh.FunctionDeclarations = append(fresh.FunctionDeclarations, &genai.FunctionDeclaration{
				Name: d.Name, Description: d.Description, ParametersJsonSchema: schemaMap(d.Schema)})
		}
		cfg.Tools = []*genai.Tool{fresh}
		for _, err := range p.models.GenerateContentStream(ctx, p.cfg.Name, contents, cfg) {
			if err != nil {
				t.Fatal(err)
			}
		}
		reqs := h.srv.Requests()
		got, want := reqs[len(reqs)-2].Body, reqs[len(reqs)-1].Body
		if string(got) != string(want) {
			t.Errorf("request %d sends\n%s\nwant\n%s", i+1, got, want)
		}
	}
	if n := len(p.tools.byKey); n != 3 {
		t.Errorf("the provider keeps %d declarations, want 3 (one per distinct definition)", n)
	}
}
