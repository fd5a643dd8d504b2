package main

import (
	"encoding/json"
	"testing"

	"demiurge.dev/plugins/authored/worker"
)

func TestToResult(t *testing.T) {
	tests := []struct {
		name, value     string
		content, model  string
		display         string
		isError         bool
		structured      bool
		hasModel, hasDi bool
	}{
		{name: "string", value: `"hi"`, content: "hi"},
		{name: "null", value: `null`, content: ""},
		{name: "nothing", value: ``, content: ""},
		{name: "number", value: `42`, content: "42"},
		{name: "list", value: `[1,"a"]`, content: "[\n  1,\n  \"a\"\n]"},
		{name: "plain dict", value: `{"words":3}`, content: "{\n  \"words\": 3\n}", structured: true},
		{name: "tool result", value: `{"content":"c","model_output":"m","display_output":"d"}`, content: "c", model: "m", display: "d", hasModel: true, hasDi: true},
		{name: "null overrides", value: `{"content":"c","model_output":null,"display_output":null}`, content: "c"},
		{name: "error result", value: `{"content":"bad","is_error":true}`, content: "bad", isError: true},
		{name: "content not text", value: `{"content":{"a":1}}`, content: `{"a":1}`},
		{name: "lifecycle ignored", value: `{"content":"c","executionStarted":false,"execution_started":false,"denial":{"r":1},"approval":"auto"}`, content: "c"},
		{name: "lifecycle only", value: `{"executionStarted":false,"denial":"x"}`, content: "{}", structured: true},
		{name: "big integer kept", value: `{"n":12345678901234567890}`, content: "{\n  \"n\": 12345678901234567890\n}", structured: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toResult("t", worker.Outcome{Value: json.RawMessage(tt.value)})
			if r.GetContent() != tt.content || r.GetModelOutput() != tt.model || r.GetDisplayOutput() != tt.display ||
				r.GetIsError() != tt.isError || (len(r.GetStructured()) > 0) != tt.structured ||
				r.GetHasModelOutput() != tt.hasModel || r.GetHasDisplayOutput() != tt.hasDi {
				t.Errorf("toResult(%s) = %v", tt.value, r)
			}
		})
	}
	fail := toResult("t", worker.Outcome{Failed: true, Code: "exception", Error: "ValueError: x"})
	if !fail.GetIsError() || fail.GetErrorCode() != "tool_error" || fail.GetContent() != "t raised ValueError: x" {
		t.Errorf("exception = %v", fail)
	}
	denied := toResult("t", worker.Outcome{Failed: true, Code: "capability_denied", Error: "capability x is not granted: no"})
	if denied.GetErrorCode() != "capability_denied" || denied.GetContent() != "capability x is not granted: no" {
		t.Errorf("denial = %v", denied)
	}
}

// A worker's result line is untrusted: whatever it holds becomes a result
// without lifecycle fields, and never a panic.
func FuzzToResult(f *testing.F) {
	for _, s := range []string{`"x"`, `null`, `{"content":"a","denial":1}`, `{"executionStarted":true}`, `[{}]`, `1e999`, `{"content":`, `{"is_error":"yes","content":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		r := toResult("t", worker.Outcome{Value: value})
		if r == nil {
			t.Fatal("nil result")
		}
		var m map[string]any
		if json.Unmarshal(r.GetStructured(), &m) == nil {
			for _, k := range lifecycleFields {
				if _, ok := m[k]; ok {
					t.Fatalf("lifecycle field %s kept: %s", k, r.GetStructured())
				}
			}
		}
	})
}
