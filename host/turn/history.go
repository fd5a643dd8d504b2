package turn

import (
	"encoding/json"
	"fmt"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
)

// assistantRecord is a model step's reply as stored.
func assistantRecord(text string, calls []providers.ToolCall, u providers.Usage) runtime.MessageRecord {
	rec := runtime.MessageRecord{Role: string(providers.RoleAssistant), Text: text,
		Usage: &runtime.MessageUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedInputTokens: u.CachedInputTokens}}
	if len(calls) > 0 {
		rec.ToolCalls, _ = json.Marshal(calls)
	}
	return rec
}

// toolRecord is a batch's model views as stored.
func toolRecord(results []providers.ToolResult) runtime.MessageRecord {
	raw, _ := json.Marshal(results)
	return runtime.MessageRecord{Role: string(providers.RoleTool), ToolResults: raw}
}

func decodeCalls(raw json.RawMessage) ([]providers.ToolCall, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var calls []providers.ToolCall
	err := json.Unmarshal(raw, &calls)
	return calls, err
}

func decodeResults(raw json.RawMessage) ([]providers.ToolResult, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var res []providers.ToolResult
	err := json.Unmarshal(raw, &res)
	return res, err
}

// replay is the part of a history a provider is sent: the newest
// summary's text, and every message after what it covers, as model views.
type replay struct {
	summary string
	// seqs[i] is the stored Seq of msgs[i].
	msgs []providers.Message
	seqs []uint64
	// turns[i] is the turn of msgs[i].
	turns []string
}

// replayOf turns stored messages into the provider's history. Summary
// messages stand for everything up to their Covers; they are not messages
// of the conversation themselves.
func replayOf(history []runtime.MessageRecord) (replay, error) {
	var r replay
	var covered uint64
	for _, m := range history {
		if m.Summary && m.Covers >= covered {
			r.summary, covered = m.Text, m.Covers
		}
	}
	for _, m := range history {
		if m.Summary || m.Seq <= covered {
			continue
		}
		msg := providers.Message{Role: providers.Role(m.Role), Text: m.Text}
		var err error
		switch msg.Role {
		case providers.RoleUser:
		case providers.RoleAssistant:
			msg.ToolCalls, err = decodeCalls(m.ToolCalls)
		case providers.RoleTool:
			msg.ToolResults, err = decodeResults(m.ToolResults)
		default:
			err = fmt.Errorf("unknown role %q", m.Role)
		}
		if err != nil {
			return replay{}, fmt.Errorf("message %d of session %s: %w", m.Seq, m.Session, err)
		}
		r.msgs = append(r.msgs, msg)
		r.seqs = append(r.seqs, m.Seq)
		r.turns = append(r.turns, m.Turn)
	}
	return r, nil
}

// normaliseCalls gives every call an id (some servers send none) that is
// unique in its step.
func normaliseCalls(calls []providers.ToolCall, step int) []providers.ToolCall {
	seen := map[string]bool{}
	out := make([]providers.ToolCall, len(calls))
	for i, c := range calls {
		if c.ID == "" || seen[c.ID] {
			c.ID = fmt.Sprintf("call_%d_%d", step, i+1)
		}
		seen[c.ID] = true
		out[i] = c
	}
	return out
}
