package providers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

func TestStreamsTextAndUsage(t *testing.T) {
	for _, prov := range allProviders {
		t.Run(prov, func(t *testing.T) {
			h := newHarness(t, prov, pt.Step{Text: []string{"Hel", "lo, ", "world"},
				Usage: &pt.Usage{InputTokens: 120, OutputTokens: 7, CachedInputTokens: 100}})
			r, deltas, err := h.stream(t, hello())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(deltas, []string{"Hel", "lo, ", "world"}) || r.Text != "Hello, world" {
				t.Fatalf("deltas %q, text %q", deltas, r.Text)
			}
			if want := (Usage{InputTokens: 120, OutputTokens: 7, CachedInputTokens: 100}); r.Usage != want {
				t.Fatalf("usage %+v, want %+v", r.Usage, want)
			}
			if r.Stop != StopEndTurn || len(r.ToolCalls) != 0 {
				t.Fatalf("stop %q calls %v", r.Stop, r.ToolCalls)
			}
		})
	}
}

// TestAssemblesToolCalls: argument deltas split across chunks (OpenAI's
// tool_calls deltas, including parallel calls interleaved by index;
// Anthropic's input_json_delta; the Responses API's
// function_call_arguments.delta/done) come back whole, byte for byte,
// even when the model's JSON is broken.
func TestAssemblesToolCalls(t *testing.T) {
	calls := []pt.ToolCall{
		{ID: "call_1", Name: "read_file", ArgChunks: []string{`{"pa`, `th": "a`, `.txt"}`}},
		{ID: "call_2", Name: "list_dir", ArgChunks: []string{`{"path":`, ` "."}`}},
		{ID: "call_3", Name: "write_file", ArgChunks: []string{`{"path": "b.txt", "content": "unterminated`}},
	}
	want := []ToolCall{
		{ID: "call_1", Name: "read_file", Args: `{"path": "a.txt"}`},
		{ID: "call_2", Name: "list_dir", Args: `{"path": "."}`},
		{ID: "call_3", Name: "write_file", Args: `{"path": "b.txt", "content": "unterminated`},
	}
	for _, prov := range allProviders {
		for _, interleave := range []bool{false, true} {
			name := prov
			if interleave {
				name += "/interleaved"
			}
			t.Run(name, func(t *testing.T) {
				step := pt.Step{Text: []string{"Reading."}, ToolCalls: calls, Interleave: interleave}
				w := want
				if prov == ProviderGemini {
					// Gemini sends arguments as a JSON object: there are no
					// deltas to split, and no broken JSON to keep.
					step.ToolCalls, w = calls[:2], want[:2]
				}
				h := newHarness(t, prov, step)
				r, _, err := h.stream(t, hello())
				if err != nil {
					t.Fatal(err)
				}
				if prov == ProviderGemini {
					for i := range r.ToolCalls {
						r.ToolCalls[i].Args = compactJSON(t, r.ToolCalls[i].Args)
						w[i].Args = compactJSON(t, w[i].Args)
					}
				}
				if !reflect.DeepEqual(r.ToolCalls, w) {
					t.Fatalf("calls\n got %+v\nwant %+v", r.ToolCalls, w)
				}
				if r.Stop != StopToolUse || r.Text != "Reading." {
					t.Fatalf("stop %q text %q", r.Stop, r.Text)
				}
			})
		}
	}
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestReplyCutByOutputLimitIsMaxTokens(t *testing.T) {
	for _, prov := range allProviders {
		t.Run(prov, func(t *testing.T) {
			h := newHarness(t, prov, pt.Step{Text: []string{"a very long ans"}, Stop: pt.StopMaxTokens})
			r, _, err := h.stream(t, hello())
			if err != nil {
				t.Fatal(err)
			}
			if r.Stop != StopMaxTokens || r.Text != "a very long ans" {
				t.Fatalf("stop %q text %q", r.Stop, r.Text)
			}
		})
	}
}

// TestSendsToolsHistoryAndKeyOnlyInHeaders checks what the host sends:
// the tool definitions, the replayed history in the provider's shape, the
// configured limits, and the key in its header and nowhere else.
func TestSendsToolsHistoryAndKeyOnlyInHeaders(t *testing.T) {
	temp := 0.25
	req := Request{
		System: "SYSTEM-PROMPT",
		Messages: []Message{
			{Role: RoleUser, Text: "USER-ASKS"},
			{Role: RoleAssistant, Text: "ASSISTANT-SAYS", ToolCalls: []ToolCall{{ID: "call_9", Name: "read_file", Args: `{"path":"x"}`}}},
			{Role: RoleTool, ToolResults: []ToolResult{{CallID: "call_9", Name: "read_file", Content: "FILE-CONTENT"}}},
		},
		Tools:           []ToolDef{{Name: "read_file", Description: "READS-A-FILE", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
		MaxOutputTokens: 321,
		Temperature:     &temp,
	}
	authHeader := map[string]string{ProviderOpenAI: "Authorization", ProviderOpenAIResponses: "Authorization", ProviderAnthropic: "X-Api-Key", ProviderGemini: "X-Goog-Api-Key"}
	for _, prov := range allProviders {
		t.Run(prov, func(t *testing.T) {
			h := newHarness(t, prov, pt.Step{Text: []string{"ok"}})
			if _, _, err := h.stream(t, req); err != nil {
				t.Fatal(err)
			}
			reqs := h.srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			body := string(reqs[0].Body)
			mustContain(t, body, "SYSTEM-PROMPT", "USER-ASKS", "ASSISTANT-SAYS", "call_9", "FILE-CONTENT", "READS-A-FILE", `"additionalProperties":false`, "321", "0.25")
			if strings.Contains(body, testKey) {
				t.Fatalf("the key is in the request body")
			}
			if got := reqs[0].Header.Get(authHeader[prov]); !strings.Contains(got, testKey) {
				t.Fatalf("header %s = %q, want the key", authHeader[prov], got)
			}
			if prov != ProviderGemini && !strings.Contains(body, `"stream":true`) {
				t.Fatalf("not a streaming request: %s", body)
			}
		})
	}
}
