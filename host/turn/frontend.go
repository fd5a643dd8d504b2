// Package turn is the agent loop: a caller of dispatch, like the CLI. It
// resolves the catalog for each turn, streams the model's reply, runs the
// model's tool calls as one ordered batch through dispatch and feeds the
// model views back, until the model ends the turn or the step cap.
package turn

import (
	"context"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/providers"
)

// EventKind names one event of a turn. The names are the "type" field of
// `demiurge run --json`.
type EventKind string

const (
	EventTurnStart  EventKind = "turn_start"
	EventTextDelta  EventKind = "text_delta"
	EventToolCall   EventKind = "tool_call"
	EventApproval   EventKind = "approval"
	EventToolResult EventKind = "tool_result"
	EventUsage      EventKind = "usage"
	EventNotice     EventKind = "notice"
	EventTurnEnd    EventKind = "turn_end"
)

// Event is what a front end is shown. Text fields hold operator views
// (redacted); nothing here is ever a secret.
type Event struct {
	Type    EventKind `json:"type"`
	Session string    `json:"session"`
	Turn    string    `json:"turn"`
	// Text is a text delta or a notice.
	Text string `json:"text,omitempty"`
	// CallID and Tool name a tool call; Card is its operator card view.
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Card   string `json:"card,omitempty"`
	// Decision is an approval's verdict (auto, allowed, denied, blocked).
	Decision string `json:"decision,omitempty"`
	// Result is a tool result's operator view.
	Result  string           `json:"result,omitempty"`
	IsError bool             `json:"is_error,omitempty"`
	Usage   *providers.Usage `json:"usage,omitempty"`
	// Status ends a turn: done, failed, cancelled, step_cap.
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// Agent and ParentAgent tag a child agent's event with its session id
	// and its parent's (empty for the front end's own session's events),
	// so that a front end can render a tree.
	Agent       string `json:"agent,omitempty"`
	ParentAgent string `json:"parent_agent,omitempty"`
	EventDetail
}

// ChildShower is a front end that also shows its children's events
// (tagged with Agent and ParentAgent). A front end without it gets none:
// a child's text never mixes into its parent's answer.
type ChildShower interface {
	ShowChild(ev Event)
}

// FrontEnd is the interactive session, `demiurge run`, MCP serve or a
// schedule: whoever shows a turn and answers its questions. The loop
// knows no terminal.
type FrontEnd interface {
	// Show receives every event of the turn in order.
	Show(ev Event)
	// Approver answers approval prompts (approval.DenyAll when no one
	// can).
	Approver() approval.Provider
	// Clarify asks the operator a question; ok false means no one can
	// answer (headless), and the tool says so to the model.
	Clarify(ctx context.Context, question string, choices []string) (answer string, ok bool, err error)
}
