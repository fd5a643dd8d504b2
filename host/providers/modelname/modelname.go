// Package modelname reads a --model value ("provider:name") and knows
// the provider names, apart from host/providers and its model SDKs, so
// that a front end checks --model as the full CLI does without linking
// them (host/providers delegates to it).
package modelname

import (
	"fmt"
	"strings"

	"demiurge.dev/catalog"
)

// Provider names --model and agent.yaml take.
const (
	Anthropic        = "anthropic"
	OpenAI           = "openai"
	OpenAIResponses  = "openai-responses"
	OpenAICompatible = "openai-compatible"
	Gemini           = "gemini"
)

// Known lists the providers host/providers builds, in the order errors
// list them.
var Known = []string{Anthropic, OpenAI, OpenAIResponses, OpenAICompatible, Gemini}

// Parse splits a --model value "provider:name" (the name may itself
// hold colons, as Ollama's "qwen3:8b" does) and checks the provider.
func Parse(s string) (provider, name string, err error) {
	provider, name, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || provider == "" || name == "" {
		return "", "", fmt.Errorf("model %q: want provider:name, e.g. anthropic:claude-sonnet-4-5 or openai:gpt-5.1 (providers: %s)",
			s, strings.Join(Known, ", "))
	}
	if err := Check(provider); err != nil {
		return "", "", err
	}
	return provider, name, nil
}

// Check says whether p is a known provider, suggesting the nearest when
// it is not.
func Check(p string) error {
	for _, k := range Known {
		if p == k {
			return nil
		}
	}
	msg := fmt.Sprintf("unknown model provider %q (known: %s)", p, strings.Join(Known, ", "))
	if s := catalog.Suggest(p, Known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return fmt.Errorf("%s", msg)
}
