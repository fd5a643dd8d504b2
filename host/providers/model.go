package providers

import (
	"fmt"
	"strings"

	"demiurge.dev/catalog"
)

// Provider names --model and agent.yaml take.
const (
	ProviderAnthropic        = "anthropic"
	ProviderOpenAI           = "openai"
	ProviderOpenAIResponses  = "openai-responses"
	ProviderOpenAICompatible = "openai-compatible"
	ProviderGemini           = "gemini"
)

// KnownProviders lists the providers New builds, in the order errors list
// them.
var KnownProviders = []string{ProviderAnthropic, ProviderOpenAI, ProviderOpenAIResponses, ProviderOpenAICompatible, ProviderGemini}

// defaultKeyEnv is the environment variable each provider's key is read
// from unless api_key_env says otherwise. openai-compatible has none: a
// local server usually needs no key.
var defaultKeyEnv = map[string]string{
	ProviderAnthropic:       "ANTHROPIC_API_KEY",
	ProviderOpenAI:          "OPENAI_API_KEY",
	ProviderOpenAIResponses: "OPENAI_API_KEY",
	ProviderGemini:          "GEMINI_API_KEY",
}

// ParseModel splits a --model value "provider:name" (the name may itself
// hold colons, as Ollama's "qwen3:8b" does) and checks the provider.
func ParseModel(s string) (provider, name string, err error) {
	provider, name, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || provider == "" || name == "" {
		return "", "", fmt.Errorf("model %q: want provider:name, e.g. anthropic:claude-sonnet-4-5 or openai:gpt-5.1 (providers: %s)",
			s, strings.Join(KnownProviders, ", "))
	}
	if err := checkProvider(provider); err != nil {
		return "", "", err
	}
	return provider, name, nil
}

func checkProvider(p string) error {
	for _, k := range KnownProviders {
		if p == k {
			return nil
		}
	}
	msg := fmt.Sprintf("unknown model provider %q (known: %s)", p, strings.Join(KnownProviders, ", "))
	if s := catalog.Suggest(p, KnownProviders); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return fmt.Errorf("%s", msg)
}
