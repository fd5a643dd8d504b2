package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/redact"
)

// cardPreview bounds the argument preview of a tool_call event's card.
const cardPreview = 300

// runBatch runs the step's calls as one ordered batch through dispatch
// (its conflict scheduling and per-turn cap) and returns their model
// views in call order. A call whose arguments are not JSON never reaches
// dispatch: it gets an argument error the model can repair.
func (t *turnRun) runBatch(ctx context.Context, dt *dispatch.Turn, calls []providers.ToolCall) []providers.ToolResult {
	results := make([]providers.ToolResult, len(calls))
	var batch []dispatch.ToolCall
	var index []int
	for i, c := range calls {
		args, argErr := callArgs(c.Args)
		t.show(Event{Type: EventToolCall, CallID: c.ID, Tool: c.Name, Card: callCard(c.Name, args, argErr), EventDetail: callDetail(args)})
		if argErr != "" {
			results[i] = providers.ToolResult{CallID: c.ID, Name: c.Name, IsError: true, Content: argErr}
			t.show(Event{Type: EventToolResult, CallID: c.ID, Tool: c.Name, Result: argErr, IsError: true, EventDetail: EventDetail{CallStatus: string(dispatch.StatusInvalidArguments)}})
			continue
		}
		batch = append(batch, dispatch.ToolCall{ID: c.ID, Name: c.Name, Args: args})
		index = append(index, i)
	}
	if len(batch) == 0 {
		return results
	}
	outs := dt.Batch(ctx, batch)
	for k, o := range outs {
		i := index[k]
		c := calls[i]
		if d := decision(o.Approval); d != "" {
			t.show(Event{Type: EventApproval, CallID: c.ID, Tool: c.Name, Decision: d, Text: o.Approval.Reason})
		}
		card := o.Views.Card
		detail, failed := resultDetail(o)
		t.show(Event{Type: EventToolResult, CallID: c.ID, Tool: c.Name, Card: card.Title, Result: card.Body, IsError: failed, EventDetail: detail})
		results[i] = providers.ToolResult{CallID: c.ID, Name: c.Name, Content: o.Views.Model.String(), IsError: !o.OK()}
	}
	return results
}

// callArgs reads the model's argument text: empty means no arguments; text
// that is not one JSON object is an argument error for the model.
func callArgs(text string) ([]byte, string) {
	s := strings.TrimSpace(text)
	if s == "" {
		return []byte("{}"), ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Sprintf("the arguments are not valid JSON (%v); send the call again with its arguments as one JSON object", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, "the arguments must be one JSON object; send the call again with an object of named arguments"
	}
	return []byte(s), ""
}

// callCard is the operator's one-line view of a call before it runs: the
// tool and its arguments, redacted by field name and bounded.
func callCard(name string, args []byte, argErr string) string {
	if argErr != "" {
		return name + " (arguments are not valid JSON)"
	}
	var m map[string]any
	_ = json.Unmarshal(args, &m)
	p := redact.Preview(m, cardPreview)
	if p == "" || p == "{}" {
		return name
	}
	return name + " " + p
}

// decision names an approval outcome for the approval event; "" when the
// call never reached approval.
func decision(o approval.Outcome) string {
	switch {
	case o.Via == "":
		return ""
	case o.Via == approval.ViaAuto:
		return "auto"
	case o.Allowed:
		return "allowed"
	case o.Via == approval.ViaBlock:
		return "blocked"
	}
	return "denied"
}
