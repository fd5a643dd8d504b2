package frontview

import (
	"fmt"
	"io"
	"strings"

	"demiurge.dev/host/termtext"
)

// Outcome is a tool call's outcome as the host sends it to a front end
// (hostd.WireOutcome, whose JSON it reads) and as `tools call` prints it.
type Outcome struct {
	CallID     string   `json:"call_id"`
	Tool       string   `json:"tool"`
	Status     string   `json:"status"`
	Model      string   `json:"model"`
	Card       Card     `json:"card"`
	Approval   Approval `json:"approval"`
	EventSeq   uint64   `json:"event_seq"`
	DurationMs int64    `json:"duration_ms"`
}

// Card is the operator's tool card (redact.Card).
type Card struct {
	Title   string `json:"title"`
	Args    string `json:"args"`
	Body    string `json:"body"`
	IsError bool   `json:"is_error"`
}

// Approval is how the call was approved (approval.Outcome).
type Approval struct {
	Allowed bool   `json:"allowed"`
	Via     string `json:"via"`
	Reason  string `json:"reason,omitempty"`
	Scope   string `json:"scope,omitempty"`
}

// OK reports whether the call ran and its tool reported success
// (dispatch.StatusOK).
func (o Outcome) OK() bool { return o.Status == "ok" }

// ToolOutcome is what `tools call` prints of an outcome: with asJSON the
// whole outcome on stdout; else the card's body on stdout when the call
// succeeded, and the tool, its status and the body on stderr when not.
func ToolOutcome(stdout, stderr io.Writer, o Outcome, asJSON bool) error {
	if asJSON {
		return WriteJSON(stdout, OutcomeJSON(o))
	}
	body := termtext.Printable(strings.TrimRight(o.Card.Body, "\n"), 1<<20)
	if o.OK() {
		_, err := fmt.Fprintln(stdout, body)
		return err
	}
	fmt.Fprintf(stderr, "%s: %s\n", o.Tool, o.Status)
	_, err := fmt.Fprintln(stderr, body)
	return err
}

// OutcomeJSON is an outcome as `tools call --json` prints it.
func OutcomeJSON(o Outcome) map[string]any {
	m := map[string]any{
		"call_id": o.CallID, "tool": o.Tool, "status": o.Status,
		"model": o.Model, "card": o.Card, "event_seq": o.EventSeq,
		"duration_ms": o.DurationMs,
	}
	if o.Approval.Via != "" {
		m["approval"] = o.Approval
	}
	return m
}
