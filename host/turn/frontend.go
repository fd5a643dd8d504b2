// Package turn is the agent loop: a caller of dispatch, like the CLI. It
// resolves the catalog for each turn, streams the model's reply, runs the
// model's tool calls as one ordered batch through dispatch and feeds the
// model views back, until the model ends the turn or the step cap.
package turn

import (
	"context"

	"demiurge.dev/host/approval"
	"demiurge.dev/shared/turnevent"
)

// EventKind names one event of a turn (turnevent.EventKind).
type EventKind = turnevent.EventKind

const (
	EventTurnStart  = turnevent.EventTurnStart
	EventTextDelta  = turnevent.EventTextDelta
	EventToolCall   = turnevent.EventToolCall
	EventApproval   = turnevent.EventApproval
	EventToolResult = turnevent.EventToolResult
	EventUsage      = turnevent.EventUsage
	EventNotice     = turnevent.EventNotice
	EventTurnEnd    = turnevent.EventTurnEnd
)

// Event is what a front end is shown (turnevent.Event, its wire form).
type Event = turnevent.Event

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
