package core

import (
	"path/filepath"
	"reflect"
	"testing"
)

// The model block's bad fixtures join badCases (TestLoadBad checks file,
// line, field and message; TestBadFixturesCovered that none is missed).
func init() {
	badCases = append(badCases, []struct {
		file  string
		line  int
		field string
		msg   string
	}{
		{"model_api_key.yaml", 5, "model.api_key", "a key is never written in agent.yaml; export it and name the variable with api_key_env"},
		{"model_unknown_provider.yaml", 2, "model.provider", `unknown model provider "antropic" (did you mean "anthropic"?); known providers: anthropic, openai, openai-responses, openai-compatible, gemini`},
		{"model_unknown_key.yaml", 3, "model.names", `unknown key "names" (did you mean "name"?)`},
		{"model_no_name.yaml", 2, "model", "names no model; add name:"},
		{"model_compatible_no_base_url.yaml", 2, "model", "openai-compatible needs base_url"},
		{"model_bad_base_url.yaml", 4, "model.base_url", `"ftp://example.com/v1" is not an http(s) URL`},
		{"model_max_tokens_string.yaml", 4, "model.max_output_tokens", `want a whole number, got the string "lots"`},
		{"model_negative_window.yaml", 4, "model.context_window", "want a whole number from 1 to"},
		{"model_temperature_range.yaml", 4, "model.temperature", "3.5 is outside 0..2"},
		{"model_bad_key_env.yaml", 4, "model.api_key_env", `"my key" is not an environment variable name`},
		{"model_not_mapping.yaml", 1, "model", `want a mapping, got the string "anthropic:claude-sonnet-4-5"`},
		{"model_thinking_small.yaml", 4, "model.thinking_budget", "512 is below Anthropic's minimum of 1024 thinking tokens"},
		{"model_thinking_not_anthropic.yaml", 2, "model", "thinking_budget turns on Anthropic extended thinking; provider openai takes none"},
		{"model_thinking_temperature.yaml", 2, "model", "thinking_budget and temperature together"},
	}...)
}

func TestLoadModel(t *testing.T) {
	dir := goodDir(t, "model")
	c, err := LoadFile(filepath.Join(dir, "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &ModelConfig{Provider: "openai-compatible", Name: "qwen3:8b", BaseURL: "http://127.0.0.1:11434/v1",
		APIKeyEnv: "OLLAMA_KEY", MaxOutputTokens: 4096, Temperature: ptr(0.2), ContextWindow: 32768}
	if !reflect.DeepEqual(c.Model, want) {
		t.Fatalf("Model = %+v, want %+v", c.Model, want)
	}
	// A clone does not share the temperature.
	n := c.clone()
	*n.Model.Temperature = 1
	if *c.Model.Temperature != 0.2 {
		t.Fatal("clone shares Model.Temperature")
	}
	m, err := LoadFile(filepath.Join(goodDir(t, "minimal"), "agent.yaml"))
	if err != nil || m.Model != nil {
		t.Fatalf("a core without model: has Model %+v (%v)", m.Model, err)
	}
}
