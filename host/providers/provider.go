// Package providers speaks the wire formats of model providers on their
// official SDKs (OpenAI Chat Completions and Responses, Anthropic
// Messages, any OpenAI-compatible server). It imports nothing of the call
// path: the turn loop hands it plain messages and tool definitions and
// gets back streamed text and whole tool calls.
package providers

import (
	"context"
	"demiurge.dev/shared/turnevent"
	"encoding/json"
)

// Role is who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the results of the assistant's previous tool calls.
	RoleTool Role = "tool"
)

// Message is one entry of the history sent to a provider: model views
// only. A RoleAssistant message may carry Text and ToolCalls; a RoleTool
// message carries ToolResults, one per call of the message before it.
type Message struct {
	Role        Role         `json:"role"`
	Text        string       `json:"text,omitempty"`
	ToolCalls   []ToolCall   `json:"tool_calls,omitempty"`
	ToolResults []ToolResult `json:"tool_results,omitempty"`
	// Reasoning is the model's reasoning state of a RoleAssistant
	// message, replayed to the provider that wrote it (see Reasoning).
	Reasoning []Reasoning `json:"reasoning,omitempty"`
}

// Reasoning is one opaque piece of a model's reasoning state as its
// provider sent it (an OpenAI Responses reasoning item with its
// encrypted_content), kept so that the next step of a tool turn
// continues the same reasoning. Wire names the format that wrote it;
// another provider never receives it.
type Reasoning struct {
	Wire string          `json:"wire"`
	Item json.RawMessage `json:"item"`
}

// ToolCall is one call the model asked for. Args is the argument text
// exactly as the model sent it; it may not be valid JSON (the turn loop
// answers that with an argument error the model can repair).
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
	// Signature is an opaque token the provider attached to this call
	// (Gemini's thoughtSignature); it is replayed on the same call, as
	// the provider requires of a tool turn's next request.
	Signature []byte `json:"signature,omitempty"`
}

// ToolResult is a call's model view.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// ToolDef is one provider tool definition, from the per-turn resolution
// (catalog.ProviderDefinitions).
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Request is one model step.
type Request struct {
	System          string
	Messages        []Message
	Tools           []ToolDef
	MaxOutputTokens int
	// Temperature nil leaves the provider's default.
	Temperature *float64
}

// Usage is a step's token count (turnevent.Usage: the events a front
// end reads carry it).
type Usage = turnevent.Usage

// StopReason says why the model stopped.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopOther     StopReason = "other"
)

// Delta is a piece of a streaming reply: text as it comes, or the news
// that a failed try is retried after a wait.
type Delta struct {
	Text string
	// Retry, when set, says the step's last try failed and another follows
	// after Retry.Wait (no text comes with it).
	Retry *Retry
}

// Reply is a whole step's answer, assembled from the stream.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	Stop      StopReason
	// Reasoning is the step's reasoning state, to be stored with the
	// assistant message and replayed (Message.Reasoning).
	Reasoning []Reasoning
}

// Provider is one configured model.
type Provider interface {
	// Name is "provider:model", as --model takes it.
	Name() string
	// ContextWindow is the model's context window in tokens (configured,
	// else the provider's known value, else a conservative default).
	ContextWindow() int
	// Stream runs one step, calling onDelta as text arrives, and returns
	// the assembled reply. Retries of 429, 5xx and overloaded happen
	// inside, bounded; the error after them says what failed.
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error)
}

// Config is the model: block of agent.yaml, overridden by --model and
// --base-url.
type Config struct {
	Provider        string   `json:"provider"`
	Name            string   `json:"name"`
	BaseURL         string   `json:"base_url,omitempty"`
	APIKeyEnv       string   `json:"api_key_env,omitempty"`
	MaxOutputTokens int      `json:"max_output_tokens,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
	ContextWindow   int      `json:"context_window,omitempty"`
	// ThinkingBudget > 0 turns on Anthropic extended thinking with that
	// many budget tokens (its thinking blocks are kept and replayed).
	ThinkingBudget int `json:"thinking_budget,omitempty"`
}
