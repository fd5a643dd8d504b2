package turn

import (
	"context"
	"fmt"
	"strings"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
)

// bytesPerToken is the estimate of tokens from bytes where the provider's
// count is unknown: low, so that the estimate errs on the large side
// (English and code run nearer four bytes a token).
const bytesPerToken = 3

// elideAbove is the size of a tool result's model view, in bytes, above
// which an old one may be elided to fit the context window.
const elideAbove = 1024

// defaultReserve is the output tokens kept free of the context window when
// no max_output_tokens is configured.
const defaultReserve = 4096

// summaryToolResult bounds one tool result in the transcript a summary is
// written from.
const summaryToolResult = 2000

// estimateTokens estimates a request's input tokens from its bytes: the
// text of every field plus a little for each field's framing on the wire,
// without encoding the request.
func estimateTokens(req providers.Request) int {
	const framing = 32
	n := len(req.System)
	for _, d := range req.Tools {
		n += len(d.Name) + len(d.Description) + len(d.Schema) + framing
	}
	for _, m := range req.Messages {
		n += len(m.Text) + framing
		for _, c := range m.ToolCalls {
			n += len(c.ID) + len(c.Name) + jsonLen(c.Args) + framing
		}
		for _, r := range m.ToolResults {
			n += len(r.CallID) + len(r.Name) + jsonLen(r.Content) + framing
		}
	}
	return n/bytesPerToken + 1
}

// jsonLen is about how long s is as a JSON string: quotes and newlines
// are escaped on the wire.
func jsonLen(s string) int {
	return len(s) + strings.Count(s, "\"") + strings.Count(s, "\n") + 2
}

// budget is how many input tokens a request may hold: the context window
// less the room for the reply.
func (t *turnRun) budget() int {
	window := t.loop.Provider.ContextWindow()
	reserve := t.loop.MaxOutputTokens
	if reserve <= 0 {
		reserve = defaultReserve
	}
	reserve = min(reserve, window/4)
	return window - reserve
}

// fit returns the request with the history's model views, compacted when
// it would pass the context window: first large tool results of earlier
// turns are elided (the store keeps them), then the model summarises the
// earlier turns, then large results of this turn are elided. Each is
// announced in a notice. A request that still does not fit is an error,
// never sent.
func (t *turnRun) fit(ctx context.Context, req providers.Request, system string) (providers.Request, error) {
	history, decoded := t.loop.snapshot()
	r := replayOf(history, decoded)
	req.System, req.Messages = withSummary(system, r.summary), r.msgs
	budget := t.budget()
	if max(estimateTokens(req), usageFloor(history, r)) <= budget {
		return req, nil
	}
	if n, size := elide(req, r, func(turn string) bool { return turn != t.id }, budget); n > 0 {
		t.notice("context: elided %d large tool results of earlier turns (%d bytes) to fit the model's context window of %d tokens; the store keeps them", n, size, t.loop.Provider.ContextWindow())
		if estimateTokens(req) <= budget {
			return req, nil
		}
	}
	if cut := olderTurns(r, t.id); cut > 0 {
		if err := t.summarise(ctx, r, cut, budget); err != nil {
			return req, err
		}
		history, decoded = t.loop.snapshot()
		r = replayOf(history, decoded)
		req.System, req.Messages = withSummary(system, r.summary), r.msgs
		if estimateTokens(req) <= budget {
			return req, nil
		}
	}
	if n, size := elide(req, r, func(string) bool { return true }, budget); n > 0 {
		t.notice("context: elided %d large tool results of this turn (%d bytes) to fit the model's context window; the store keeps them", n, size)
		if estimateTokens(req) <= budget {
			return req, nil
		}
	}
	return req, fmt.Errorf("the conversation does not fit the model's context window of %d tokens even after compaction (about %d tokens of input); start a new session or raise model.context_window", t.loop.Provider.ContextWindow(), estimateTokens(req))
}

// usageFloor is the provider's own count of the history up to its last
// counted step (input and output of that step) plus an estimate of what
// came after; 0 when no step since the last summary was counted.
func usageFloor(history []runtime.MessageRecord, r replay) int {
	var summarySeq uint64
	for _, m := range history {
		if m.Summary {
			summarySeq = max(summarySeq, m.Seq)
		}
	}
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Seq <= summarySeq {
			return 0
		}
		if m.Usage == nil || m.Summary || m.Usage.InputTokens+m.Usage.OutputTokens == 0 {
			continue
		}
		var after []providers.Message
		for j, seq := range r.seqs {
			if seq > m.Seq {
				after = r.msgs[j:]
				break
			}
		}
		return int(m.Usage.InputTokens+m.Usage.OutputTokens) + estimateTokens(providers.Request{Messages: after})
	}
	return 0
}

// elide replaces large tool results of the turns old selects with a note,
// oldest first, until the request fits. The messages are the request's own
// copies; the store is not touched.
func elide(req providers.Request, r replay, old func(turn string) bool, budget int) (n, size int) {
	for i := range req.Messages {
		if req.Messages[i].Role != providers.RoleTool || !old(r.turns[i]) {
			continue
		}
		results := append([]providers.ToolResult(nil), req.Messages[i].ToolResults...)
		changed := false
		for j, res := range results {
			if len(res.Content) <= elideAbove {
				continue
			}
			n, size = n+1, size+len(res.Content)
			results[j].Content = fmt.Sprintf("[elided by the host to fit the context window: %d bytes of this %s result; call the tool again if you need it]", len(res.Content), res.Name)
			changed = true
		}
		if changed {
			req.Messages[i].ToolResults = results
			if estimateTokens(req) <= budget {
				return n, size
			}
		}
	}
	return n, size
}

// olderTurns is how many of the replayed messages belong to turns before
// the current one (the messages a summary may stand for).
func olderTurns(r replay, current string) int {
	for i, turn := range r.turns {
		if turn == current {
			return i
		}
	}
	return len(r.msgs)
}

const summaryInstruction = "You compact a conversation between an operator and a coding agent so that it can go on within the model's context window. " +
	"Write a concise summary of the transcript below: the operator's requests, what was done and found (files, commands, results, decisions), and what is still open. " +
	"Write only the summary."

// summarise has the model write a summary of the first cut replayed
// messages and stores it as a summary message covering them; the
// originals stay in the store.
func (t *turnRun) summarise(ctx context.Context, r replay, cut, budget int) error {
	text := transcript(r.summary, r.msgs[:cut])
	room := max(budget-estimateTokens(providers.Request{System: summaryInstruction})-64, 256) * bytesPerToken
	omitted := ""
	if len(text) > room {
		text = text[len(text)-room:]
		omitted = "[the beginning of the transcript was omitted to fit]\n"
	}
	req := providers.Request{System: summaryInstruction, MaxOutputTokens: min(t.budget()/4, 2048),
		Messages: []providers.Message{{Role: providers.RoleUser, Text: omitted + text}}}
	reply, err := t.loop.Provider.Stream(ctx, req, func(providers.Delta) {})
	if err != nil {
		return fmt.Errorf("context: the summary of earlier turns could not be written: %w", err)
	}
	summary := strings.TrimSpace(reply.Text)
	if summary == "" {
		return fmt.Errorf("context: the model wrote an empty summary of earlier turns")
	}
	t.addUsage(reply.Usage)
	covers := r.seqs[cut-1]
	if err := t.append(ctx, runtime.MessageRecord{Role: string(providers.RoleAssistant), Text: summary, Summary: true, Covers: covers,
		Usage: &runtime.MessageUsage{InputTokens: reply.Usage.InputTokens, OutputTokens: reply.Usage.OutputTokens}}); err != nil {
		return err
	}
	t.notice("context: the model summarised %d earlier messages (through message %d) to fit the context window; the originals stay in the store", cut, covers)
	return nil
}

// transcript renders messages as plain text for the summary request.
func transcript(prev string, msgs []providers.Message) string {
	var b strings.Builder
	if prev != "" {
		fmt.Fprintf(&b, "[summary of what came before]\n%s\n\n", prev)
	}
	for _, m := range msgs {
		switch m.Role {
		case providers.RoleUser:
			fmt.Fprintf(&b, "operator: %s\n", m.Text)
		case providers.RoleAssistant:
			if m.Text != "" {
				fmt.Fprintf(&b, "agent: %s\n", m.Text)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "agent calls %s %s\n", c.Name, bounded(c.Args, summaryToolResult))
			}
		case providers.RoleTool:
			for _, res := range m.ToolResults {
				fmt.Fprintf(&b, "result of %s: %s\n", res.Name, bounded(res.Content, summaryToolResult))
			}
		}
	}
	return b.String()
}

func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… [%d more bytes]", len(s)-n)
}
