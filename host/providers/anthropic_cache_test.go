package providers

import (
	"encoding/json"
	"strings"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

// TestAnthropicCacheBreakpointsKeyHeaderAndUsage checks a tool step's
// request as Anthropic documents prompt caching: cache_control on the
// last tool definition, the system text, the last message and the user
// turn the previous step ended with, never more than four; the key in
// x-api-key and not in Authorization; and the cache reads and writes of
// the stream in the reply's usage.
func TestAnthropicCacheBreakpointsKeyHeaderAndUsage(t *testing.T) {
	h := newHarness(t, ProviderAnthropic, pt.Step{Text: []string{"ok"},
		Usage: &pt.Usage{InputTokens: 1000, OutputTokens: 7, CachedInputTokens: 600, CacheWriteTokens: 300}})
	req := Request{
		System: "SYSTEM",
		Messages: []Message{
			{Role: RoleUser, Text: "first ask"},
			{Role: RoleAssistant, Text: "reading", ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Args: `{"path":"a"}`}}},
			{Role: RoleTool, ToolResults: []ToolResult{{CallID: "c1", Name: "read_file", Content: "A"}}},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c2", Name: "read_file", Args: `{"path":"b"}`}}},
			{Role: RoleTool, ToolResults: []ToolResult{{CallID: "c2", Name: "read_file", Content: "B"}}},
		},
		Tools: []ToolDef{{Name: "list_dir", Description: "L"}, {Name: "read_file", Description: "R"}},
	}
	r, _, err := h.stream(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage != (Usage{InputTokens: 1000, OutputTokens: 7, CachedInputTokens: 600, CacheWriteTokens: 300}) {
		t.Fatalf("usage %+v", r.Usage)
	}
	got := h.srv.Requests()[0]
	if k := got.Header.Get("X-Api-Key"); k != testKey {
		t.Fatalf("x-api-key %q", k)
	}
	if a := got.Header.Get("Authorization"); a != "" {
		t.Fatalf("Authorization %q sent besides x-api-key", a)
	}
	if n := strings.Count(string(got.Body), `"cache_control"`); n != 4 {
		t.Fatalf("%d cache_control breakpoints, want 4: %s", n, got.Body)
	}
	var body struct {
		System []map[string]any `json:"system"`
		Tools  []map[string]any `json:"tools"`
		// Messages' blocks.
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	marked := func(m map[string]any) bool {
		cc, _ := m["cache_control"].(map[string]any)
		return cc["type"] == "ephemeral"
	}
	if marked(body.Tools[0]) || !marked(body.Tools[1]) {
		t.Errorf("tools: want the breakpoint on the last definition only: %v", body.Tools)
	}
	if !marked(body.System[0]) {
		t.Errorf("system text not marked: %v", body.System)
	}
	// user, assistant, user(result c1), assistant, user(result c2).
	if len(body.Messages) != 5 {
		t.Fatalf("%d messages", len(body.Messages))
	}
	last := func(i int) map[string]any { c := body.Messages[i].Content; return c[len(c)-1] }
	if !marked(last(4)) || !marked(last(2)) || marked(last(0)) || marked(last(1)) || marked(last(3)) {
		t.Errorf("messages: want breakpoints on the last and the previous user turn: %s", got.Body)
	}
}

// TestAnthropicBreakpointsBounded: a request with no tools and one
// message gets two breakpoints (system, message), and none is ever set
// twice on one block.
func TestAnthropicBreakpointsBounded(t *testing.T) {
	h := newHarness(t, ProviderAnthropic, pt.Step{Text: []string{"ok"}})
	if _, _, err := h.stream(t, hello()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(h.srv.Requests()[0].Body), `"cache_control"`); n != 2 {
		t.Fatalf("%d breakpoints, want 2: %s", n, h.srv.Requests()[0].Body)
	}
}
