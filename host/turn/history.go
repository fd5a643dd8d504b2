package turn

import (
	"encoding/json"
	"fmt"
	"strings"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
)

// assistantRecord is a model step's reply as stored.
func assistantRecord(text string, calls []providers.ToolCall, reasoning []providers.Reasoning, u providers.Usage) runtime.MessageRecord {
	rec := runtime.MessageRecord{Role: string(providers.RoleAssistant), Text: text,
		Usage: &runtime.MessageUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedInputTokens: u.CachedInputTokens, CacheWriteTokens: u.CacheWriteTokens}}
	if len(calls) > 0 {
		rec.ToolCalls, _ = json.Marshal(calls)
	}
	if len(reasoning) > 0 {
		rec.Reasoning, _ = json.Marshal(reasoning)
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

// decodeRecord is a stored message as a provider message.
func decodeRecord(m runtime.MessageRecord) (providers.Message, error) {
	msg := providers.Message{Role: providers.Role(m.Role), Text: m.Text}
	var err error
	switch msg.Role {
	case providers.RoleUser:
	case providers.RoleAssistant:
		msg.ToolCalls, err = decodeCalls(m.ToolCalls)
		if err == nil && len(m.Reasoning) > 0 {
			err = json.Unmarshal(m.Reasoning, &msg.Reasoning)
		}
	case providers.RoleTool:
		msg.ToolResults, err = decodeResults(m.ToolResults)
	default:
		err = fmt.Errorf("unknown role %q", m.Role)
	}
	if err != nil {
		return msg, fmt.Errorf("message %d of session %s: %w", m.Seq, m.Session, err)
	}
	return msg, nil
}

// decodeAll decodes stored messages once, as they are loaded or written.
func decodeAll(history []runtime.MessageRecord) ([]providers.Message, error) {
	out := make([]providers.Message, len(history))
	for i, m := range history {
		msg, err := decodeRecord(m)
		if err != nil {
			return nil, err
		}
		out[i] = msg
	}
	return out, nil
}

// replayOf turns stored messages (and their decoded forms) into the
// provider's history. Summary messages stand for everything up to their
// Covers; they are not messages of the conversation themselves.
func replayOf(history []runtime.MessageRecord, decoded []providers.Message) replay {
	var r replay
	var covered uint64
	for _, m := range history {
		if m.Summary && m.Covers >= covered {
			r.summary, covered = m.Text, m.Covers
		}
	}
	for i, m := range history {
		if m.Summary || m.Seq <= covered {
			continue
		}
		r.msgs = append(r.msgs, decoded[i])
		r.seqs = append(r.seqs, m.Seq)
		r.turns = append(r.turns, m.Turn)
		if lost := lostResults(decoded, i); lost != nil {
			r.msgs = append(r.msgs, *lost)
			r.seqs = append(r.seqs, m.Seq)
			r.turns = append(r.turns, m.Turn)
		}
	}
	return r
}

// lostResult answers a call whose result was never stored.
const lostResult = "the result of this call was not recorded: the host stopped before storing it (the audit log has what the call did)"

// lostResults answers the calls of decoded[i] when no results follow it:
// a step's results ride with the next commit (submit.go), so a host that
// stopped between a step's audit commit and the next one left its calls
// unanswered, which every provider refuses. A step in progress never
// reaches a request: its results are stored before the next one.
func lostResults(decoded []providers.Message, i int) *providers.Message {
	m := decoded[i]
	if m.Role != providers.RoleAssistant || len(m.ToolCalls) == 0 {
		return nil
	}
	if i+1 < len(decoded) && decoded[i+1].Role == providers.RoleTool {
		return nil
	}
	out := &providers.Message{Role: providers.RoleTool}
	for _, c := range m.ToolCalls {
		out.ToolResults = append(out.ToolResults, providers.ToolResult{CallID: c.ID, Name: c.Name, Content: lostResult, IsError: true})
	}
	return out
}

// normaliseCalls gives every call an id that is unique in the session:
// some servers send none (Gemini, some OpenAI-compatible servers), some
// number every step's calls from zero again (call_0), and a provider
// matches a result to its call by id across the whole replayed history.
// A call without an id, or with one the session already used, gets
// call_<turn>_<step>_<n>; used holds the ids of the history, and gets
// the ids given.
func normaliseCalls(calls []providers.ToolCall, used map[string]bool, turn string, step int) []providers.ToolCall {
	out := make([]providers.ToolCall, len(calls))
	for i, c := range calls {
		for n := 0; c.ID == "" || used[c.ID]; n++ {
			c.ID = fmt.Sprintf("call_%s_%d_%d", strings.TrimPrefix(turn, "turn_"), step, i+1)
			if n > 0 {
				c.ID += fmt.Sprintf("_%d", n)
			}
		}
		used[c.ID] = true
		out[i] = c
	}
	return out
}

// usedCallIDs are the ids of every tool call in the history.
func usedCallIDs(history []providers.Message) map[string]bool {
	used := map[string]bool{}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	return used
}
