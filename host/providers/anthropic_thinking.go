package providers

import (
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

const wireAnthropic = "anthropic"

// anthropicThinking is one thinking or redacted_thinking block of a reply,
// kept as Reasoning so that the next request of a tool turn carries it
// back unchanged in the same assistant turn, signature and all, as
// https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
// requires. AfterCalls is how many tool_use blocks came before it in the
// reply: the replay keeps its place among the calls (interleaved
// thinking puts thinking between tool_use blocks).
type anthropicThinking struct {
	Type       string `json:"type"` // "thinking" or "redacted_thinking"
	Thinking   string `json:"thinking,omitempty"`
	Signature  string `json:"signature,omitempty"`
	Data       string `json:"data,omitempty"`
	AfterCalls int    `json:"after_calls"`
}

// thinkingCollector assembles a stream's thinking blocks by index.
type thinkingCollector struct {
	blocks map[int64]*anthropicThinking
	order  []int64
}

// start records a thinking or redacted_thinking block's start; calls is
// the number of tool_use blocks started before it.
func (c *thinkingCollector) start(index int64, b anthropic.ContentBlockStartEventContentBlockUnion, calls int) {
	if b.Type != "thinking" && b.Type != "redacted_thinking" {
		return
	}
	if c.blocks == nil {
		c.blocks = map[int64]*anthropicThinking{}
	}
	c.blocks[index] = &anthropicThinking{Type: b.Type, Thinking: b.Thinking, Signature: b.Signature, Data: b.Data, AfterCalls: calls}
	c.order = append(c.order, index)
}

// delta adds a thinking_delta or signature_delta to its block.
func (c *thinkingCollector) delta(index int64, typ, thinking, signature string) {
	b := c.blocks[index]
	if b == nil {
		return
	}
	switch typ {
	case "thinking_delta":
		b.Thinking += thinking
	case "signature_delta":
		b.Signature += signature
	}
}

// reasoning is the reply's blocks in stream order.
func (c *thinkingCollector) reasoning() []Reasoning {
	var out []Reasoning
	for _, i := range c.order {
		item, _ := json.Marshal(c.blocks[i])
		out = append(out, Reasoning{Wire: wireAnthropic, Item: item})
	}
	return out
}

// anthropicAssistantBlocks is an assistant message's content as the API
// takes it back: its thinking blocks (written by Anthropic only) at their
// places, then its text, then its tool calls, each thinking block that
// followed a call after it.
func anthropicAssistantBlocks(m Message) []anthropic.ContentBlockParamUnion {
	var thinking []anthropicThinking
	for _, r := range m.Reasoning {
		var t anthropicThinking
		if r.Wire == wireAnthropic && json.Unmarshal(r.Item, &t) == nil {
			thinking = append(thinking, t)
		}
	}
	var blocks []anthropic.ContentBlockParamUnion
	next := 0
	thinkUpTo := func(calls int) {
		for ; next < len(thinking) && thinking[next].AfterCalls <= calls; next++ {
			t := thinking[next]
			if t.Type == "redacted_thinking" {
				blocks = append(blocks, anthropic.NewRedactedThinkingBlock(t.Data))
			} else {
				blocks = append(blocks, anthropic.NewThinkingBlock(t.Signature, t.Thinking))
			}
		}
	}
	thinkUpTo(0)
	if m.Text != "" {
		blocks = append(blocks, anthropic.NewTextBlock(m.Text))
	}
	for i, c := range m.ToolCalls {
		blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, replayInput(c.Args), c.Name))
		thinkUpTo(i + 1)
	}
	thinkUpTo(len(thinking) + len(m.ToolCalls))
	return blocks
}
