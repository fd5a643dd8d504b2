package providers

import (
	"reflect"
	"testing"

	"demiurge.dev/host/core"
)

// TestCoreModelConfigConverts: agent.yaml's model block converts to a
// Config by a plain conversion (the field lists must stay identical), and
// core accepts exactly the providers New builds.
func TestCoreModelConfigConverts(t *testing.T) {
	temp := 0.3
	m := core.ModelConfig{Provider: "anthropic", Name: "claude-x", BaseURL: "http://127.0.0.1:1", APIKeyEnv: "K",
		MaxOutputTokens: 10, Temperature: &temp, ContextWindow: 20, ThinkingBudget: 2048}
	got := Config(m)
	want := Config{Provider: "anthropic", Name: "claude-x", BaseURL: "http://127.0.0.1:1", APIKeyEnv: "K",
		MaxOutputTokens: 10, Temperature: &temp, ContextWindow: 20, ThinkingBudget: 2048}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v", got)
	}
	if !reflect.DeepEqual(core.ModelProviders, KnownProviders) {
		t.Fatalf("core.ModelProviders %v, providers.KnownProviders %v", core.ModelProviders, KnownProviders)
	}
}
