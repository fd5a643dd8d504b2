package providertest

// writeAnthropic streams a step as Anthropic Messages events:
// message_start, content_block_start/delta/stop per block (text_delta,
// input_json_delta, thinking_delta, signature_delta), message_delta
// with the stop reason and usage, message_stop.
func writeAnthropic(e *sse, s Step, model string) {
	e.malformedEvent = "content_block_delta"
	u := Usage{}
	if s.Usage != nil {
		u = *s.Usage
	}
	// Anthropic counts cached input apart from input_tokens.
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_providertest", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.InputTokens - u.CachedInputTokens - u.CacheWriteTokens, "output_tokens": 1,
			"cache_read_input_tokens": u.CachedInputTokens, "cache_creation_input_tokens": u.CacheWriteTokens},
	}})
	e.event("ping", map[string]any{"type": "ping"})
	block := 0
	thinking := func(calls int) {
		for _, t := range s.Thinking {
			if t.AfterCalls != calls {
				continue
			}
			if t.RedactedData != "" {
				e.event("content_block_start", map[string]any{"type": "content_block_start", "index": block,
					"content_block": map[string]any{"type": "redacted_thinking", "data": t.RedactedData}})
			} else {
				e.event("content_block_start", map[string]any{"type": "content_block_start", "index": block,
					"content_block": map[string]any{"type": "thinking", "thinking": ""}})
				for _, c := range t.Chunks {
					e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": block,
						"delta": map[string]any{"type": "thinking_delta", "thinking": c}})
				}
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": block,
					"delta": map[string]any{"type": "signature_delta", "signature": t.Signature}})
			}
			e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": block})
			block++
		}
	}
	thinking(0)
	if len(s.Text) > 0 {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": block,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, t := range s.Text {
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": block,
				"delta": map[string]any{"type": "text_delta", "text": t}})
		}
	}
	if e.interrupted(s, func(se StreamError) {
		e.event("error", map[string]any{"type": "error", "error": map[string]any{"type": orDefault(se.Type, "api_error"), "message": se.Message}})
	}) {
		return
	}
	if len(s.Text) > 0 {
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": block})
		block++
	}
	for i, c := range s.ToolCalls {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": block,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		for _, a := range c.chunks() {
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": block,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": a}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": block})
		block++
		thinking(i + 1)
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": s.stop(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}
