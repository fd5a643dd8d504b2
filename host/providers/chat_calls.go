package providers

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
)

// chatCalls assembles the tool calls of a Chat Completions stream. OpenAI
// sends a call's id and name once, in its first delta, and later deltas
// only its index and a piece of the arguments. Compatible servers differ,
// and each difference here is one a server people use was seen to make
// (the scripted streams in chat_quirks_test.go cite them):
//   - the whole name again in every delta (MiniMax on NVIDIA NIM): a
//     repeated name is the same call, not more of its name;
//   - the id again in every delta (LiteLLM): the same id is the same call;
//   - an empty name on argument deltas (LM Studio): ignored;
//   - every parallel call at index 0, each whole in one delta (Ollama), or
//     no index at all (older Ollama): a delta with another id, or a named
//     delta after the current call's arguments are whole JSON, opens a
//     new call.
type chatCalls struct {
	calls []*ToolCall
	// byIndex is the call last opened at each index.
	byIndex map[int64]*ToolCall
	last    *ToolCall
}

func (a *chatCalls) add(d openai.ChatCompletionChunkChoiceDeltaToolCall) {
	if a.byIndex == nil {
		a.byIndex = map[int64]*ToolCall{}
	}
	c := a.last
	if d.JSON.Index.Valid() {
		c = a.byIndex[d.Index]
	}
	if c == nil || a.startsNew(c, d) {
		c = &ToolCall{}
		a.calls = append(a.calls, c)
	}
	a.byIndex[d.Index], a.last = c, c
	if c.ID == "" {
		c.ID = d.ID
	}
	// Names are not split by any server seen; a name piece that is not the
	// whole name again is still appended, as the OpenAI contract allows.
	if n := d.Function.Name; n != "" && n != c.Name {
		c.Name += n
	}
	c.Args += d.Function.Arguments
}

// startsNew says whether d begins another call than c, though it came at
// c's index (or without one).
func (a *chatCalls) startsNew(c *ToolCall, d openai.ChatCompletionChunkChoiceDeltaToolCall) bool {
	if d.ID != "" && c.ID != "" && d.ID != c.ID {
		return true
	}
	// Without a new id: a named delta that brings arguments after the
	// current call's arguments are already a whole JSON value.
	return d.ID == "" && d.Function.Name != "" && d.Function.Arguments != "" &&
		c.Args != "" && json.Valid([]byte(c.Args))
}

// result is the calls in the order they were opened.
func (a *chatCalls) result() []ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(a.calls))
	for i, c := range a.calls {
		out[i] = *c
	}
	return out
}
