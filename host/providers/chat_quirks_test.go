package providers

import (
	"fmt"
	"strings"
	"testing"

	pt "demiurge.dev/host/providers/providertest"
)

// chunk is one chat.completion.chunk data line with the given choice
// delta (JSON) and finish_reason (JSON: null or a string).
func chunk(delta, finish string) string {
	return fmt.Sprintf(`data: {"id":"chatcmpl-q","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, finish)
}

// TestChatCompatibleServerQuirks drives the openai-compatible provider
// with streams as particular servers send them, each from the report it
// was seen in, and checks the assembled calls.
func TestChatCompatibleServerQuirks(t *testing.T) {
	done := "data: [DONE]"
	cases := []struct {
		name   string
		events []string
		text   string
		calls  []ToolCall
		stop   StopReason
	}{{
		// MiniMax M2.7 on NVIDIA NIM sends the whole function name in every
		// chunk; appending made "read_fileread_file"
		// (github.com/NousResearch/hermes-agent/issues/8259, fixed in
		// hermes-agent#12230).
		name: "nvidia-nim-name-in-every-chunk",
		events: []string{
			chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_n1","type":"function","function":{"name":"read_file","arguments":""}}]}`, "null"),
			chunk(`{"tool_calls":[{"index":0,"function":{"name":"read_file","arguments":"{\"path\":"}}]}`, "null"),
			chunk(`{"tool_calls":[{"index":0,"function":{"name":"read_file","arguments":"\"a.txt\"}"}}]}`, "null"),
			chunk(`{}`, `"tool_calls"`), done},
		calls: []ToolCall{{ID: "call_n1", Name: "read_file", Args: `{"path":"a.txt"}`}},
		stop:  StopToolUse,
	}, {
		// LiteLLM's proxy repeats the call's id (and type) on every chunk
		// (github.com/BerriAI/litellm/issues/20480).
		name: "litellm-id-in-every-chunk",
		events: []string{
			chunk(`{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"search","arguments":"{\"qu"}}]}`, "null"),
			chunk(`{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"arguments":"ery\":"}}]}`, "null"),
			chunk(`{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"arguments":"\"hello\"}"}}]}`, "null"),
			chunk(`{}`, `"tool_calls"`), done},
		calls: []ToolCall{{ID: "call_abc", Name: "search", Args: `{"query":"hello"}`}},
		stop:  StopToolUse,
	}, {
		// LM Studio sends "name": "" on the argument chunks
		// (github.com/lmstudio-ai/lmstudio-bug-tracker/issues/649,
		// github.com/0xPlaygrounds/rig/pull/442).
		name: "lmstudio-empty-name-on-argument-chunks",
		events: []string{
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"613034163","type":"function","function":{"name":"web_extract","arguments":""}}]}`, "null"),
			chunk(`{"tool_calls":[{"index":0,"type":"function","function":{"name":"","arguments":"{\"url\":\"https://e.org\"}"}}]}`, "null"),
			chunk(`{}`, `"tool_calls"`), done},
		calls: []ToolCall{{ID: "613034163", Name: "web_extract", Args: `{"url":"https://e.org"}`}},
		stop:  StopToolUse,
	}, {
		// Ollama streams each call whole in one chunk, every parallel call
		// at index 0 (github.com/ollama/ollama/issues/15457, described in
		// github.com/LibreChat-AI/agents/pull/260), and ends with
		// finish_reason "stop" (github.com/ollama/ollama/pull/7963).
		name: "ollama-parallel-calls-all-index-0-finish-stop",
		events: []string{
			chunk(`{"role":"assistant","content":"","tool_calls":[{"id":"call_o1","index":0,"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}`, "null"),
			chunk(`{"role":"assistant","content":"","tool_calls":[{"id":"call_o2","index":0,"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]}`, "null"),
			chunk(`{"role":"assistant","content":""}`, `"stop"`), done},
		calls: []ToolCall{{ID: "call_o1", Name: "read_file", Args: `{"path":"a"}`}, {ID: "call_o2", Name: "read_file", Args: `{"path":"b"}`}},
		stop:  StopToolUse,
	}, {
		// Older Ollama builds send no index at all
		// (github.com/ollama/ollama/issues/7881) and some gateways no id
		// (github.com/BerriAI/litellm/pull/11528 sets ids for Ollama): two
		// whole calls stay two calls; the turn loop names them.
		name: "ollama-no-index-no-id",
		events: []string{
			chunk(`{"tool_calls":[{"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}`, "null"),
			chunk(`{"tool_calls":[{"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]}`, "null"),
			chunk(`{}`, `"tool_calls"`), done},
		calls: []ToolCall{{Name: "read_file", Args: `{"path":"a"}`}, {Name: "read_file", Args: `{"path":"b"}`}},
		stop:  StopToolUse,
	}, {
		// vLLM's first call chunk has id, type and name and no
		// "arguments" key; the arguments follow; usage comes in a last
		// chunk with no choices (log in
		// github.com/sgl-project/sglang/issues/4700).
		name: "vllm-name-chunk-without-arguments",
		events: []string{
			chunk(`{"role":"assistant","content":""}`, "null"),
			chunk(`{"tool_calls":[{"id":"chatcmpl-tool-72dc","type":"function","index":0,"function":{"name":"vector_store"}}]}`, "null"),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\": \"x\"}"}}]}`, "null"),
			chunk(`{"content":""}`, `"tool_calls"`),
			`data: {"id":"chatcmpl-q","object":"chat.completion.chunk","created":0,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`,
			done},
		calls: []ToolCall{{ID: "chatcmpl-tool-72dc", Name: "vector_store", Args: `{"q": "x"}`}},
		stop:  StopToolUse,
	}, {
		// llama.cpp server streams a thinking model's reasoning as
		// delta.reasoning_content and adds "timings" to each chunk
		// (github.com/openai-php/client/issues/780); the reasoning is not
		// the reply's text.
		name: "llamacpp-reasoning-content-and-timings",
		events: []string{
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"reasoning_content":"Let me think"}}],"created":1,"id":"chatcmpl-l","model":"gemma.gguf","system_fingerprint":"b9554","object":"chat.completion.chunk","timings":{"prompt_n":10,"predicted_n":28}}`,
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hello"}}],"created":1,"id":"chatcmpl-l","model":"gemma.gguf","object":"chat.completion.chunk","timings":{"prompt_n":10,"predicted_n":29}}`,
			`data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1,"id":"chatcmpl-l","model":"gemma.gguf","object":"chat.completion.chunk"}`,
			done},
		text: "Hello",
		stop: StopEndTurn,
	}, {
		// OpenRouter sends SSE comments (": OPENROUTER PROCESSING") to keep
		// the connection open (openrouter.ai/docs/api_reference/streaming).
		name: "openrouter-keepalive-comments",
		events: []string{
			": OPENROUTER PROCESSING",
			chunk(`{"role":"assistant","content":"Hi"}`, "null"),
			": OPENROUTER PROCESSING",
			chunk(`{"content":" there"}`, `"stop"`), done},
		text: "Hi there",
		stop: StopEndTurn,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, ProviderOpenAICompatible, pt.Step{Events: c.events})
			r, _, err := h.stream(t, hello())
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != c.text || r.Stop != c.stop {
				t.Errorf("text %q stop %q, want %q %q", r.Text, r.Stop, c.text, c.stop)
			}
			if fmt.Sprint(r.ToolCalls) != fmt.Sprint(c.calls) {
				t.Errorf("calls\n got %+v\nwant %+v", r.ToolCalls, c.calls)
			}
		})
	}
}

// TestChatOpenRouterMidStreamError: OpenRouter reports an error after the
// stream started as a data event with an error field and finish_reason
// "error" (openrouter.ai/docs/api_reference/streaming, "Handling Errors
// During Streaming"); the step fails with the server's message, as a
// stream error, not as a dropped connection.
func TestChatOpenRouterMidStreamError(t *testing.T) {
	h := newHarness(t, ProviderOpenAICompatible, pt.Step{Events: []string{
		chunk(`{"role":"assistant","content":""}`, "null"),
		`data: {"id":"cmpl-abc","object":"chat.completion.chunk","created":0,"model":"openai/gpt-4o","provider":"openai","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
	}})
	_, _, err := h.stream(t, hello())
	if err == nil {
		t.Fatal("no error")
	}
	mustContain(t, err.Error(), "the stream reported an error", "Provider disconnected unexpectedly")
	if strings.Contains(err.Error(), "dropped") {
		t.Errorf("reported as a dropped connection: %v", err)
	}
}
