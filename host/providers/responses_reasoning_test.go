package providers

import (
	"encoding/json"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

// TestResponsesReasoningKeptAndReplayed: with store false, the host asks
// for reasoning.encrypted_content, keeps the completed reasoning item of a
// tool step and sends it back, before the step's function_call, in the
// next request's input
// (https://platform.openai.com/docs/guides/reasoning#encrypted-reasoning-items).
// Reasoning state never goes to another wire format.
func TestResponsesReasoningKeptAndReplayed(t *testing.T) {
	h := newHarness(t, ProviderOpenAIResponses,
		pt.Step{Reasoning: &pt.Reasoning{ID: "rs_1", Summary: []string{"need the file"}, EncryptedContent: "ENC-STATE-1"},
			ToolCalls: []pt.ToolCall{{ID: "call_1", Name: "read_file", Args: `{"path":"a"}`}}},
		pt.Step{Text: []string{"done"}})
	r, _, err := h.stream(t, hello())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Reasoning) != 1 || r.Reasoning[0].Wire != "openai-responses" {
		t.Fatalf("reasoning %+v", r.Reasoning)
	}
	var item map[string]any
	if err := json.Unmarshal(r.Reasoning[0].Item, &item); err != nil || item["encrypted_content"] != "ENC-STATE-1" || item["id"] != "rs_1" {
		t.Fatalf("item %s", r.Reasoning[0].Item)
	}
	var first struct {
		Store   bool     `json:"store"`
		Include []string `json:"include"`
	}
	_ = json.Unmarshal(h.srv.Requests()[0].Body, &first)
	if first.Store || len(first.Include) != 1 || first.Include[0] != "reasoning.encrypted_content" {
		t.Fatalf("first request: %s", h.srv.Requests()[0].Body)
	}
	req := hello()
	req.Messages = append(req.Messages,
		Message{Role: RoleAssistant, ToolCalls: r.ToolCalls, Reasoning: append(r.Reasoning,
			Reasoning{Wire: "gemini", Item: json.RawMessage(`{"type":"reasoning","id":"FOREIGN"}`)})},
		Message{Role: RoleTool, ToolResults: []ToolResult{{CallID: "call_1", Name: "read_file", Content: "A"}}})
	if _, _, err := h.stream(t, req); err != nil {
		t.Fatal(err)
	}
	var second struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(h.srv.Requests()[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, in := range second.Input {
		typ, _ := in["type"].(string)
		types = append(types, typ)
		if in["id"] == "FOREIGN" {
			t.Errorf("another wire format's state was sent: %s", h.srv.Requests()[1].Body)
		}
	}
	// user message, reasoning, function_call, function_call_output.
	if len(types) != 4 || types[1] != "reasoning" || types[2] != "function_call" {
		t.Fatalf("input types %v: %s", types, h.srv.Requests()[1].Body)
	}
	if second.Input[1]["encrypted_content"] != "ENC-STATE-1" || second.Input[1]["id"] != "rs_1" {
		t.Fatalf("replayed item %v", second.Input[1])
	}
}
