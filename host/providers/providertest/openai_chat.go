package providertest

// writeChat streams a step as OpenAI chat.completion.chunk events ending
// in data: [DONE].
func writeChat(e *sse, s Step, model string) {
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-providertest", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		}
	}
	e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, t := range s.Text {
		e.event("", chunk(map[string]any{"content": t}, nil))
	}
	if e.interrupted(s, func(se StreamError) {
		e.event("", map[string]any{"error": map[string]any{"message": se.Message, "type": orDefault(se.Type, "server_error")}})
	}) {
		return
	}
	// The first delta of a call names it; the rest carry argument pieces
	// and only the index, as the API sends them.
	for i, c := range s.ToolCalls {
		e.event("", chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		if !s.Interleave {
			for _, a := range c.chunks() {
				e.event("", chunk(argDelta(i, a), nil))
			}
		}
	}
	if s.Interleave {
		for _, p := range roundRobin(s.ToolCalls) {
			e.event("", chunk(argDelta(p.call, p.text), nil))
		}
	}
	e.event("", chunk(map[string]any{}, chatFinish(s.stop())))
	if s.Usage != nil {
		e.event("", map[string]any{
			"id": "chatcmpl-providertest", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{},
			"usage": map[string]any{
				"prompt_tokens": s.Usage.InputTokens, "completion_tokens": s.Usage.OutputTokens,
				"total_tokens":          s.Usage.InputTokens + s.Usage.OutputTokens,
				"prompt_tokens_details": map[string]any{"cached_tokens": s.Usage.CachedInputTokens},
			},
		})
	}
	e.raw("", "[DONE]")
}

func argDelta(index int, text string) map[string]any {
	return map[string]any{"tool_calls": []any{map[string]any{"index": index, "function": map[string]any{"arguments": text}}}}
}

func chatFinish(stop string) string {
	switch stop {
	case StopToolUse:
		return "tool_calls"
	case StopMaxTokens:
		return "length"
	}
	return "stop"
}

type argPiece struct {
	call int
	text string
}

// roundRobin orders the argument chunks of all calls one of each in turn.
func roundRobin(calls []ToolCall) []argPiece {
	var out []argPiece
	for round := 0; ; round++ {
		any := false
		for i, c := range calls {
			ch := c.chunks()
			if round < len(ch) {
				out = append(out, argPiece{i, ch[round]})
				any = true
			}
		}
		if !any {
			return out
		}
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
