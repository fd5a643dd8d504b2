package providertest

// writeResponses streams a step as OpenAI Responses API events:
// response.created, output items (message with output_text deltas,
// function_call with function_call_arguments.delta/done), then
// response.completed or response.incomplete with the usage.
func writeResponses(e *sse, s Step, model string, encrypted bool) {
	e.malformedEvent = "response.output_text.delta"
	seq := 0
	ev := func(typ string, v map[string]any) {
		v["type"] = typ
		v["sequence_number"] = seq
		seq++
		e.event(typ, v)
	}
	resp := func(status string, output []any) map[string]any {
		r := map[string]any{"id": "resp_providertest", "object": "response", "created_at": 0, "status": status,
			"model": model, "output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
			"incomplete_details": nil, "error": nil}
		if status == "incomplete" {
			r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
		}
		if s.Usage != nil && status != "in_progress" {
			r["usage"] = map[string]any{
				"input_tokens": s.Usage.InputTokens, "output_tokens": s.Usage.OutputTokens,
				"total_tokens":          s.Usage.InputTokens + s.Usage.OutputTokens,
				"input_tokens_details":  map[string]any{"cached_tokens": s.Usage.CachedInputTokens},
				"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			}
		}
		return r
	}
	ev("response.created", map[string]any{"response": resp("in_progress", []any{})})
	var output []any
	out := 0
	if r := s.Reasoning; r != nil {
		summary := []any{}
		for _, t := range r.Summary {
			summary = append(summary, map[string]any{"type": "summary_text", "text": t})
		}
		item := map[string]any{"id": r.ID, "type": "reasoning", "summary": []any{}}
		ev("response.output_item.added", map[string]any{"output_index": out, "item": item})
		for i, t := range r.Summary {
			ev("response.reasoning_summary_text.delta", map[string]any{"item_id": r.ID, "output_index": out, "summary_index": i, "delta": t})
		}
		done := map[string]any{"id": r.ID, "type": "reasoning", "summary": summary}
		if encrypted {
			done["encrypted_content"] = r.EncryptedContent
		}
		ev("response.output_item.done", map[string]any{"output_index": out, "item": done})
		output = append(output, done)
		out++
	}
	if len(s.Text) > 0 {
		ev("response.output_item.added", map[string]any{"output_index": out, "item": map[string]any{
			"id": "msg_providertest", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		ev("response.content_part.added", map[string]any{"item_id": "msg_providertest", "output_index": out, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, t := range s.Text {
			ev("response.output_text.delta", map[string]any{"item_id": "msg_providertest", "output_index": out, "content_index": 0, "delta": t, "logprobs": []any{}})
		}
	}
	if e.interrupted(s, func(se StreamError) {
		ev("error", map[string]any{"code": orDefault(se.Type, "server_error"), "message": se.Message, "param": nil})
	}) {
		return
	}
	if len(s.Text) > 0 {
		text := join(s.Text)
		part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
		ev("response.output_text.done", map[string]any{"item_id": "msg_providertest", "output_index": out, "content_index": 0, "text": text, "logprobs": []any{}})
		ev("response.content_part.done", map[string]any{"item_id": "msg_providertest", "output_index": out, "content_index": 0, "part": part})
		item := map[string]any{"id": "msg_providertest", "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		ev("response.output_item.done", map[string]any{"output_index": out, "item": item})
		output = append(output, item)
		out++
	}
	for i, c := range s.ToolCalls {
		id := "fc_" + c.ID
		ev("response.output_item.added", map[string]any{"output_index": out + i, "item": map[string]any{
			"id": id, "type": "function_call", "status": "in_progress", "call_id": c.ID, "name": c.Name, "arguments": ""}})
		for _, a := range c.chunks() {
			ev("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": out + i, "delta": a})
		}
		ev("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": out + i, "arguments": c.args()})
		item := map[string]any{"id": id, "type": "function_call", "status": "completed", "call_id": c.ID, "name": c.Name, "arguments": c.args()}
		ev("response.output_item.done", map[string]any{"output_index": out + i, "item": item})
		output = append(output, item)
	}
	if s.stop() == StopMaxTokens {
		ev("response.incomplete", map[string]any{"response": resp("incomplete", output)})
		return
	}
	ev("response.completed", map[string]any{"response": resp("completed", output)})
}

func join(ss []string) string {
	n := ""
	for _, s := range ss {
		n += s
	}
	return n
}
