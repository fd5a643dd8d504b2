package providers

import (
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// The tools a request sends are encoded once per definition and kept; the
// request's JSON must stay what the SDK writes from the definition itself,
// on the first request and on the next ones, and a definition that changes
// under the same name must be sent as it now is.
func TestKeptToolEncodingsSendTheSameJSON(t *testing.T) {
	defs := []ToolDef{
		{Name: "read_file", Description: "Read a file.\nLines <b> & more \u2028.", Schema: json.RawMessage(`{"additionalProperties":false,"properties":{"offset":{"minimum":1e21,"type":"integer"},"path":{"type":"string"}},"required":["path"],"type":"object"}`)},
		{Name: "empty", Description: "", Schema: nil},
	}
	changed := []ToolDef{{Name: "read_file", Description: "Read a file.", Schema: json.RawMessage(`{"properties":{"p":{"type":"string"}},"type":"object"}`)}}

	chatWant := func(defs []ToolDef) string {
		var tools []openai.ChatCompletionToolUnionParam
		for _, d := range defs {
			tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
				Name: d.Name, Description: openai.String(d.Description), Parameters: schemaMap(d.Schema)}))
		}
		b, err := json.Marshal(tools)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	responsesWant := func(defs []ToolDef) string {
		var tools []responses.ToolUnionParam
		for _, d := range defs {
			tools = append(tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
				Name: d.Name, Description: openai.String(d.Description), Parameters: schemaMap(d.Schema), Strict: openai.Bool(false)}})
		}
		b, err := json.Marshal(tools)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Anthropic's last tool carries the request's cache breakpoint, and
	// only the last: a kept tool must never carry one into a later request.
	anthropicWant := func(defs []ToolDef) string {
		var tools []anthropic.ToolUnionParam
		for _, d := range defs {
			tools = append(tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
				Name: d.Name, Description: anthropic.String(d.Description), InputSchema: anthropicSchema(d.Schema)}})
		}
		tools[len(tools)-1].OfTool.CacheControl = anthropic.NewCacheControlEphemeralParam()
		b, err := json.Marshal(tools)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	reversed := []ToolDef{defs[1], defs[0]}
	chat := newOpenAIChat(base{cfg: Config{Name: "m"}})
	resp := newOpenAIResponses(base{cfg: Config{Name: "m"}})
	anth := newAnthropic(base{cfg: Config{Name: "m"}})
	for i, tools := range [][]ToolDef{defs, defs, changed, defs, reversed, defs} {
		req := Request{Tools: tools, Messages: []Message{{Role: RoleUser, Text: "hi"}}}
		got, err := json.Marshal(chat.params(req).Tools)
		if err != nil {
			t.Fatal(err)
		}
		if want := chatWant(tools); string(got) != want {
			t.Errorf("chat request %d sends tools\n%s\nwant\n%s", i+1, got, want)
		}
		got, err = json.Marshal(resp.params(req).Tools)
		if err != nil {
			t.Fatal(err)
		}
		if want := responsesWant(tools); string(got) != want {
			t.Errorf("responses request %d sends tools\n%s\nwant\n%s", i+1, got, want)
		}
		got, err = json.Marshal(anth.params(req).Tools)
		if err != nil {
			t.Fatal(err)
		}
		if want := anthropicWant(tools); string(got) != want {
			t.Errorf("anthropic request %d sends tools\n%s\nwant\n%s", i+1, got, want)
		}
	}
	if n := len(chat.tools.byKey); n != 3 {
		t.Errorf("chat keeps %d encodings, want 3 (one per distinct definition)", n)
	}
}
