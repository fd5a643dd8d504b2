package providers

import "demiurge.dev/host/providers/modelname"

// Provider names --model and agent.yaml take (modelname's).
const (
	ProviderAnthropic        = modelname.Anthropic
	ProviderOpenAI           = modelname.OpenAI
	ProviderOpenAIResponses  = modelname.OpenAIResponses
	ProviderOpenAICompatible = modelname.OpenAICompatible
	ProviderGemini           = modelname.Gemini
)

// KnownProviders lists the providers New builds, in the order errors list
// them.
var KnownProviders = modelname.Known

// defaultKeyEnv is the environment variable each provider's key is read
// from unless api_key_env says otherwise. openai-compatible has none: a
// local server usually needs no key.
var defaultKeyEnv = map[string]string{
	ProviderAnthropic:       "ANTHROPIC_API_KEY",
	ProviderOpenAI:          "OPENAI_API_KEY",
	ProviderOpenAIResponses: "OPENAI_API_KEY",
	ProviderGemini:          "GEMINI_API_KEY",
}

// ParseModel splits a --model value "provider:name" and checks the
// provider (modelname.Parse).
func ParseModel(s string) (provider, name string, err error) { return modelname.Parse(s) }

func checkProvider(p string) error { return modelname.Check(p) }
