package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"demiurge.dev/plugins/authored/worker"
	"demiurge.dev/shared/toolsetv1"
)

// lifecycleFields belong to the host, which derives them from its own
// capability, approval and dispatch state: an authored tool returning
// them changes nothing.
var lifecycleFields = []string{"executionStarted", "execution_started", "denial", "approval"}

// resultFields make a dict a ToolResult-compatible dict.
var resultFields = []string{"content", "model_output", "display_output"}

// toResult converts what the entrypoint returned: a string is the content;
// an object with content, model_output or display_output is a ToolResult;
// any other JSON value becomes its JSON text.
func toResult(tool string, out worker.Outcome) *toolsetv1.ToolResult {
	if out.Failed {
		code := out.Code
		msg := out.Error
		switch code {
		case "capability_denied":
		case "exception", "":
			code, msg = "tool_error", fmt.Sprintf("%s raised %s", tool, out.Error)
		}
		return &toolsetv1.ToolResult{IsError: true, ErrorCode: code, Content: msg}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(out.Value))
	dec.UseNumber()
	if len(bytes.TrimSpace(out.Value)) == 0 {
		return &toolsetv1.ToolResult{}
	}
	if err := dec.Decode(&v); err != nil {
		return &toolsetv1.ToolResult{IsError: true, ErrorCode: "bad_result", Content: fmt.Sprintf("%s returned a value that is not JSON", tool)}
	}
	switch x := v.(type) {
	case nil:
		return &toolsetv1.ToolResult{}
	case string:
		return &toolsetv1.ToolResult{Content: x}
	case map[string]any:
		for _, k := range lifecycleFields {
			delete(x, k)
		}
		if hasAny(x, resultFields) {
			return fromDict(x)
		}
		return structured(x)
	}
	return structured(v)
}

func hasAny(m map[string]any, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func fromDict(d map[string]any) *toolsetv1.ToolResult {
	r := &toolsetv1.ToolResult{Content: text(d["content"])}
	if v, ok := d["model_output"]; ok && v != nil {
		r.ModelOutput, r.HasModelOutput = text(v), true
	}
	if v, ok := d["display_output"]; ok && v != nil {
		r.DisplayOutput, r.HasDisplayOutput = text(v), true
	}
	if b, _ := d["is_error"].(bool); b {
		r.IsError, r.ErrorCode = true, "tool_error"
	}
	return r
}

// structured is a JSON value as indented text, also kept as the result's
// structured value when it is an object.
func structured(v any) *toolsetv1.ToolResult {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return &toolsetv1.ToolResult{Content: fmt.Sprint(v)}
	}
	r := &toolsetv1.ToolResult{Content: string(b)}
	if _, ok := v.(map[string]any); ok {
		r.Structured, _ = json.Marshal(v)
	}
	return r
}

// text is a field's value as text: strings as they are, anything else as
// JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
