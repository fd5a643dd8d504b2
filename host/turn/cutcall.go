package turn

import (
	"context"
	"encoding/json"
	"fmt"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
)

// runStepCalls runs a step's calls. When the reply was cut at the output
// limit, its last call may be cut short: arguments that are not whole JSON
// are not run, and the model is told that its call was cut at the limit,
// not only that its JSON is invalid, so that it sends less at once (a
// file in parts) instead of the same call again.
func (t *turnRun) runStepCalls(ctx context.Context, dt *dispatch.Turn, calls []providers.ToolCall, stop providers.StopReason) []providers.ToolResult {
	n := len(calls)
	if stop != providers.StopMaxTokens || n == 0 || json.Valid([]byte(calls[n-1].Args)) {
		return t.runBatch(ctx, dt, calls)
	}
	var results []providers.ToolResult
	if n > 1 {
		results = t.runBatch(ctx, dt, calls[:n-1])
	}
	c := calls[n-1]
	limit := "the output limit"
	if t.loop.MaxOutputTokens > 0 {
		limit = fmt.Sprintf("the output limit of %d tokens", t.loop.MaxOutputTokens)
	}
	msg := fmt.Sprintf("not run: your call was cut at %s after %d characters of arguments, before they were complete. "+
		"Send less in one call (for a large file: write a first part, then add the rest with further calls).", limit, len(c.Args))
	t.show(Event{Type: EventToolCall, CallID: c.ID, Tool: c.Name, Card: c.Name + " (cut at the output limit)"})
	t.show(Event{Type: EventToolResult, CallID: c.ID, Tool: c.Name, Result: msg, IsError: true})
	return append(results, providers.ToolResult{CallID: c.ID, Name: c.Name, Content: msg, IsError: true})
}
