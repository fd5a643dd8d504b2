// Package providertest runs loopback HTTP servers that speak the
// documented streaming wire formats of the model providers (OpenAI Chat
// Completions, the OpenAI Responses API, Anthropic Messages, Gemini
// streamGenerateContent), replying from a script: one Step per request, in
// order. Tests drive the real SDK clients (and the whole CLI) against them
// and read back the requests the host sent.
//
// # Script JSON
//
// A script is a JSON array of steps; request N gets step N. A request
// after the last step gets a 400 whose message says the script ran out.
//
//	[
//	  {"text": ["Let me ", "look."],
//	   "tool_calls": [
//	     {"id": "call_1", "name": "read_file", "arg_chunks": ["{\"path\":", "\"a.txt\"}"]},
//	     {"id": "call_2", "name": "list_dir", "args": "{}"}],
//	   "interleave": true,
//	   "usage": {"input_tokens": 120, "output_tokens": 30, "cached_input_tokens": 100}},
//	  {"text": ["Done."], "stop": "end_turn"},
//	  {"error": {"status": 429, "headers": {"Retry-After": "1"}, "message": "slow down"}},
//	  {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
//	  {"raw": {"status": 200, "content_type": "text/html", "body": "<html>proxy</html>"}},
//	  {"text": ["partial"], "drop": true},
//	  {"text": ["partial"], "cut": true},
//	  {"text": ["partial"], "malformed": true},
//	  {"text": ["partial"], "stream_error": {"type": "overloaded_error", "message": "Overloaded"}},
//	  {"text": ["a", "b"], "delay_ms": 50, "chunk_delay_ms": 10}
//	]
//
// Fields of a step:
//   - text: text chunks, one stream event each.
//   - tool_calls: calls, after the text. A call's arguments are arg_chunks
//     (one delta event each) or args (one delta). For Gemini, whose calls
//     carry a JSON object, the joined arguments must be a JSON object.
//   - text_signature (Gemini only): the thoughtSignature on the last
//     text part, as Gemini 3 sends it on a reply without calls.
//   - signature (a call's, Gemini only): the thoughtSignature its
//     functionCall part carries.
//   - reasoning (Responses only): a reasoning item {id, summary,
//     encrypted_content} sent before the text; encrypted_content only to a
//     request that includes "reasoning.encrypted_content".
//   - events: the stream verbatim, one SSE block per entry (a data line,
//     a comment line, an event and data line), sent as the whole reply:
//     a particular server's stream exactly as it was seen.
//   - interleave: send the argument chunks of parallel calls round-robin
//     (OpenAI Chat assembles them by index).
//   - usage: the token counts the stream reports (input includes cached).
//   - stop: "end_turn", "tool_use" or "max_tokens", sent in each format's
//     words (finish_reason stop/tool_calls/length; stop_reason; Responses
//     status incomplete with reason max_output_tokens; Gemini
//     finishReason STOP/MAX_TOKENS). Default: tool_use when the step has
//     calls, else end_turn.
//   - error: answer with an HTTP error instead of a stream: status,
//     headers, and a provider-shaped body built from type and message, or
//     body verbatim; echo_headers puts the request's headers into the
//     message (to prove a client never shows them).
//   - raw: answer exactly this status, content type and body.
//   - drop: after the text, abort the connection (no terminal event).
//   - cut: after the text, end the response cleanly but without the
//     format's terminal events (no finish reason, message_stop, [DONE]).
//   - malformed: after the text, send an SSE data line that is not JSON.
//   - stream_error: after the text, send the format's in-stream error event.
//   - delay_ms: wait before the response; chunk_delay_ms: wait between
//     events (both end early when the client goes away).
//   - for: the step answers only a request whose body contains this text
//     (a child agent's instructions, say). With any step marked, a request
//     takes the next unused step of the first marker its body contains,
//     else the next unused unmarked step: parent and children of one run
//     are scripted apart, whatever order their requests come in.
package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Step is the reply to one request.
type Step struct {
	Text         []string     `json:"text,omitempty"`
	ToolCalls    []ToolCall   `json:"tool_calls,omitempty"`
	Interleave   bool         `json:"interleave,omitempty"`
	Usage        *Usage       `json:"usage,omitempty"`
	Stop         string       `json:"stop,omitempty"`
	Error        *ErrorReply  `json:"error,omitempty"`
	Raw          *RawReply    `json:"raw,omitempty"`
	Drop         bool         `json:"drop,omitempty"`
	Cut          bool         `json:"cut,omitempty"`
	Malformed    bool         `json:"malformed,omitempty"`
	StreamError  *StreamError `json:"stream_error,omitempty"`
	DelayMS      int          `json:"delay_ms,omitempty"`
	ChunkDelayMS int          `json:"chunk_delay_ms,omitempty"`
	// Events, when set, is the whole stream, sent verbatim: each entry
	// one SSE block ("data: {…}", ": comment", "event: x\ndata: {…}"), for
	// the exact streams of servers that depart from their format.
	Events []string `json:"events,omitempty"`
	// TextSignature is the Gemini thoughtSignature (base64) sent on the
	// step's last text part (Gemini only).
	TextSignature string `json:"text_signature,omitempty"`
	// Reasoning is the step's reasoning item (Responses API only).
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// Thinking are the step's extended-thinking blocks (Anthropic only).
	Thinking []Thinking `json:"thinking,omitempty"`
	// For routes the step to requests whose body contains it.
	For string `json:"for,omitempty"`
}

// Reasoning is a Responses API reasoning item. Its encrypted_content is
// sent, as the API does with store false, only to a request whose include
// names "reasoning.encrypted_content".
type Reasoning struct {
	ID               string   `json:"id"`
	Summary          []string `json:"summary,omitempty"`
	EncryptedContent string   `json:"encrypted_content"`
}

// Thinking is one Anthropic extended-thinking block: a thinking block
// streamed as thinking_delta chunks then one signature_delta, or, with
// RedactedData, a redacted_thinking block whole in its
// content_block_start. AfterCalls places it after that many of the step's
// tool calls (interleaved thinking); 0 is before the text.
type Thinking struct {
	Chunks       []string `json:"chunks,omitempty"`
	Signature    string   `json:"signature,omitempty"`
	RedactedData string   `json:"redacted_data,omitempty"`
	AfterCalls   int      `json:"after_calls,omitempty"`
}

// ToolCall is one call the scripted model makes.
type ToolCall struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Args      string   `json:"args,omitempty"`
	ArgChunks []string `json:"arg_chunks,omitempty"`
	// Signature is the Gemini thoughtSignature (base64) sent on the
	// call's functionCall part, as Gemini 3 models send it.
	Signature string `json:"signature,omitempty"`
}

// Usage is the token count a step reports.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	// CacheWriteTokens is input written to the prompt cache (Anthropic's
	// cache_creation_input_tokens); counted in InputTokens too.
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// ErrorReply is an HTTP error answer.
type ErrorReply struct {
	Status      int               `json:"status"`
	Headers     map[string]string `json:"headers,omitempty"`
	Type        string            `json:"type,omitempty"`
	Message     string            `json:"message,omitempty"`
	Body        string            `json:"body,omitempty"`
	EchoHeaders bool              `json:"echo_headers,omitempty"`
}

// RawReply is an answer sent byte for byte.
type RawReply struct {
	Status      int    `json:"status"`
	ContentType string `json:"content_type,omitempty"`
	Body        string `json:"body"`
}

// StreamError is an error event inside a started stream.
type StreamError struct {
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
}

// Stops a script may name.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
)

// chunks is the call's argument deltas.
func (c ToolCall) chunks() []string {
	if len(c.ArgChunks) > 0 {
		return c.ArgChunks
	}
	return []string{c.Args}
}

// args is the call's whole argument text.
func (c ToolCall) args() string {
	var b bytes.Buffer
	for _, s := range c.chunks() {
		b.WriteString(s)
	}
	return b.String()
}

// stop is the step's stop reason, defaulted.
func (s Step) stop() string {
	if s.Stop != "" {
		return s.Stop
	}
	if len(s.ToolCalls) > 0 {
		return StopToolUse
	}
	return StopEndTurn
}

// ParseScript reads a script (see the package comment), refusing unknown
// fields so that a typo does not silently change a test.
func ParseScript(data []byte) ([]Step, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var steps []Step
	if err := dec.Decode(&steps); err != nil {
		return nil, fmt.Errorf("providertest: script: %w", err)
	}
	for i, s := range steps {
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("providertest: script step %d: %w", i+1, err)
		}
	}
	return steps, nil
}

// LoadScript reads a script file.
func LoadScript(path string) ([]Step, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("providertest: %w", err)
	}
	steps, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return steps, nil
}

func (s Step) validate() error {
	switch s.stop() {
	case StopEndTurn, StopToolUse, StopMaxTokens:
	default:
		return fmt.Errorf("stop %q: want end_turn, tool_use or max_tokens", s.Stop)
	}
	if s.Error != nil && s.Raw != nil {
		return fmt.Errorf("error and raw exclude each other")
	}
	if s.Error != nil && (s.Error.Status < 400 || s.Error.Status > 599) {
		return fmt.Errorf("error status %d: want 400..599", s.Error.Status)
	}
	if s.Raw != nil && (s.Raw.Status < 100 || s.Raw.Status > 599) {
		return fmt.Errorf("raw status %d: want 100..599", s.Raw.Status)
	}
	for _, c := range s.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %q has no name", c.ID)
		}
	}
	return nil
}
