package packages

import (
	"strings"
	"testing"

	"demiurge.dev/shared/toolsetv1"
)

// TestRedactResultEveryText: a package tool's bound key is replaced in
// every text a result carries, the model's and the operator's views as
// much as the content and the structured JSON (a mutation run found
// ModelOutput and DisplayOutput unguarded).
func TestRedactResultEveryText(t *testing.T) {
	const key = "tvly-KEY-1234567890abcdef"
	res := &toolsetv1.ToolResult{
		Content:       "content " + key,
		ModelOutput:   "model " + key,
		DisplayOutput: "display " + key,
		Structured:    []byte(`{"echo":"` + key + `"}`),
	}
	out := redactResult(res, map[string]string{"TAVILY_API_KEY": key})
	for name, text := range map[string]string{
		"content": out.GetContent(), "model_output": out.GetModelOutput(),
		"display_output": out.GetDisplayOutput(), "structured": string(out.GetStructured()),
	} {
		if strings.Contains(text, key) || text == "" {
			t.Errorf("%s = %q: the bound key is not redacted", name, text)
		}
	}
}
