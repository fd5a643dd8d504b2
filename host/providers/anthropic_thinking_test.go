package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

// TestAnthropicThinkingBlocksKeptAndReplayed: the thinking and
// redacted_thinking blocks of a tool step, streamed as Anthropic documents
// them (thinking_delta chunks, then a signature_delta; redacted data whole
// in content_block_start), are kept in the reply's reasoning state, survive
// the session's JSON, and go back unchanged, signatures and places among
// the tool_use blocks included, in the assistant turn of the next request
// (https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks).
// Another provider's state is never sent.
func TestAnthropicThinkingBlocksKeptAndReplayed(t *testing.T) {
	h := newHarness(t, ProviderAnthropic,
		pt.Step{
			Thinking: []pt.Thinking{
				{Chunks: []string{"I should ", "read a."}, Signature: "SIG-ONE/+=="},
				{RedactedData: "REDACTED-OPAQUE-1"},
				{Chunks: []string{"now b."}, Signature: "SIG-TWO", AfterCalls: 1},
			},
			Text: []string{"reading"},
			ToolCalls: []pt.ToolCall{
				{ID: "toolu_1", Name: "read_file", Args: `{"path":"a"}`},
				{ID: "toolu_2", Name: "read_file", Args: `{"path":"b"}`},
			},
		},
		pt.Step{Text: []string{"done"}})
	r, _, err := h.stream(t, hello())
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "reading" || len(r.ToolCalls) != 2 || len(r.Reasoning) != 3 {
		t.Fatalf("reply %+v", r)
	}
	// The session keeps messages as JSON.
	stored, err := json.Marshal(Message{Role: RoleAssistant, Text: r.Text, ToolCalls: r.ToolCalls,
		Reasoning: append(r.Reasoning, Reasoning{Wire: wireResponses, Item: json.RawMessage(`{"type":"reasoning","id":"FOREIGN"}`)})})
	if err != nil {
		t.Fatal(err)
	}
	var back Message
	if err := json.Unmarshal(stored, &back); err != nil {
		t.Fatal(err)
	}
	req := hello()
	req.Messages = append(req.Messages, back,
		Message{Role: RoleTool, ToolResults: []ToolResult{
			{CallID: "toolu_1", Name: "read_file", Content: "A"},
			{CallID: "toolu_2", Name: "read_file", Content: "B"}}})
	if _, _, err := h.stream(t, req); err != nil {
		t.Fatal(err)
	}
	var second struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(h.srv.Requests()[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	if len(second.Messages) != 3 || second.Messages[1].Role != "assistant" {
		t.Fatalf("messages: %s", h.srv.Requests()[1].Body)
	}
	want := []map[string]any{
		{"type": "thinking", "thinking": "I should read a.", "signature": "SIG-ONE/+=="},
		{"type": "redacted_thinking", "data": "REDACTED-OPAQUE-1"},
		{"type": "text", "text": "reading"},
		{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": map[string]any{"path": "a"}},
		{"type": "thinking", "thinking": "now b.", "signature": "SIG-TWO"},
		{"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": map[string]any{"path": "b"}},
	}
	if got := second.Messages[1].Content; !reflect.DeepEqual(got, want) {
		t.Fatalf("assistant turn replayed as\n%v\nwant\n%v", got, want)
	}
}

// TestAnthropicThinkingNeverReachesAnotherProvider: Anthropic's thinking
// state is not sent to the Responses API when a session changes provider.
func TestAnthropicThinkingNeverReachesAnotherProvider(t *testing.T) {
	h := newHarness(t, ProviderOpenAIResponses, pt.Step{Text: []string{"ok"}})
	item, _ := json.Marshal(anthropicThinking{Type: "thinking", Thinking: "SECRET-THOUGHT", Signature: "S"})
	req := hello()
	req.Messages = append(req.Messages,
		Message{Role: RoleAssistant, Text: "hi", Reasoning: []Reasoning{{Wire: wireAnthropic, Item: item}}},
		Message{Role: RoleUser, Text: "again"})
	if _, _, err := h.stream(t, req); err != nil {
		t.Fatal(err)
	}
	if body := string(h.srv.Requests()[0].Body); strings.Contains(body, "SECRET-THOUGHT") {
		t.Fatalf("anthropic thinking sent to responses: %s", body)
	}
}

// TestAnthropicThinkingBudgetTurnsThinkingOn: model.thinking_budget sends
// `thinking: {type: enabled, budget_tokens}`, with max_tokens raised by the
// budget (which must stay below it) and no temperature (Anthropic refuses
// one with extended thinking); other providers and budgets under 1024 are
// refused.
func TestAnthropicThinkingBudgetTurnsThinkingOn(t *testing.T) {
	srv := pt.NewServer(pt.KindAnthropic, []pt.Step{{Text: []string{"ok"}}})
	t.Cleanup(srv.Close)
	temp := 0.2
	p, err := New(Config{Provider: ProviderAnthropic, Name: "claude-x", BaseURL: srv.URL, ThinkingBudget: 2048, MaxOutputTokens: 4000}, keyEnv,
		&http.Client{Transport: &http.Transport{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeIdle(p) })
	req := hello()
	req.Temperature = &temp
	if _, err := p.Stream(context.Background(), req, func(Delta) {}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		MaxTokens   int             `json:"max_tokens"`
		Temperature *float64        `json:"temperature"`
		Thinking    json.RawMessage `json:"thinking"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if string(body.Thinking) != `{"budget_tokens":2048,"type":"enabled"}` || body.MaxTokens != 6048 || body.Temperature != nil {
		t.Fatalf("request: %s", srv.Requests()[0].Body)
	}
	for _, bad := range []Config{
		{Provider: ProviderOpenAI, Name: "gpt", ThinkingBudget: 2048},
		{Provider: ProviderAnthropic, Name: "claude-x", ThinkingBudget: 100},
	} {
		if _, err := New(bad, keyEnv, nil); err == nil || !strings.Contains(err.Error(), "thinking_budget") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
