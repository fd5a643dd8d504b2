package providertest

import "encoding/json"

// writeGemini streams a step as Gemini GenerateContentResponse chunks
// (streamGenerateContent with alt=sse): text parts, then the function
// calls whole (Gemini sends a call's arguments as one JSON object), the
// last chunk carrying finishReason and usageMetadata.
func writeGemini(e *sse, s Step) {
	chunk := func(parts []any, finish string) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		c := map[string]any{"candidates": []any{cand}, "modelVersion": "providertest"}
		if finish != "" && s.Usage != nil {
			c["usageMetadata"] = map[string]any{
				"promptTokenCount": s.Usage.InputTokens, "candidatesTokenCount": s.Usage.OutputTokens,
				"totalTokenCount": s.Usage.InputTokens + s.Usage.OutputTokens, "cachedContentTokenCount": s.Usage.CachedInputTokens,
			}
		}
		return c
	}
	for i, t := range s.Text {
		part := map[string]any{"text": t}
		if i == len(s.Text)-1 && s.TextSignature != "" {
			part["thoughtSignature"] = s.TextSignature
		}
		e.event("", chunk([]any{part}, ""))
	}
	if e.interrupted(s, func(se StreamError) {
		e.event("", map[string]any{"error": map[string]any{"code": 500, "message": se.Message, "status": orDefault(se.Type, "INTERNAL")}})
	}) {
		return
	}
	var parts []any
	for _, c := range s.ToolCalls {
		var args any = map[string]any{}
		// Gemini's calls are JSON objects; a script's broken arguments
		// go as a string rather than break the stream.
		if a := c.args(); json.Valid([]byte(a)) {
			args = json.RawMessage(a)
		} else if a != "" {
			args = a
		}
		fc := map[string]any{"name": c.Name, "args": args}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		part := map[string]any{"functionCall": fc}
		if c.Signature != "" {
			// Gemini 3 puts the signature on the part, beside the call.
			part["thoughtSignature"] = c.Signature
		}
		parts = append(parts, part)
	}
	finish := "STOP"
	if s.stop() == StopMaxTokens {
		finish = "MAX_TOKENS"
	}
	if parts == nil {
		parts = []any{}
	}
	e.event("", chunk(parts, finish))
}
