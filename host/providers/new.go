package providers

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// New builds the provider cfg names. The key is read through getenv
// (the host's environment) from cfg.APIKeyEnv or the provider's default
// variable; it goes only into request headers, never into an error. hc
// may be nil; its transport is wrapped to bound error bodies. The SDKs'
// own retries are off: the provider's retries (see Option) are the only
// ones.
func New(cfg Config, getenv func(string) string, hc *http.Client, opts ...Option) (Provider, error) {
	if err := checkProvider(cfg.Provider); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Name) == "" {
		return nil, fmt.Errorf("model provider %s: no model name (set model.name in agent.yaml or --model %s:NAME)", cfg.Provider, cfg.Provider)
	}
	if cfg.MaxOutputTokens < 0 || cfg.ContextWindow < 0 {
		return nil, fmt.Errorf("model %s:%s: max_output_tokens and context_window must not be negative", cfg.Provider, cfg.Name)
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("model %s:%s: base_url %q is not an http(s) URL", cfg.Provider, cfg.Name, cfg.BaseURL)
		}
		if u.User != nil {
			// net/http would send it as a Basic Authorization header.
			return nil, fmt.Errorf("model %s:%s: base_url must not hold credentials; put the key in an environment variable named by api_key_env", cfg.Provider, cfg.Name)
		}
	}
	if cfg.ThinkingBudget != 0 && (cfg.Provider != ProviderAnthropic || cfg.ThinkingBudget < 1024) {
		return nil, fmt.Errorf("model %s:%s: thinking_budget is for anthropic only, at least 1024 tokens", cfg.Provider, cfg.Name)
	}
	if cfg.Provider == ProviderOpenAICompatible && cfg.BaseURL == "" {
		return nil, fmt.Errorf("model openai-compatible:%s: base_url is required (e.g. http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8080/v1 for llama.cpp)", cfg.Name)
	}
	keyEnv := cfg.APIKeyEnv
	if keyEnv == "" {
		keyEnv = defaultKeyEnv[cfg.Provider]
	}
	key := ""
	if keyEnv != "" && getenv != nil {
		key = getenv(keyEnv)
	}
	if key == "" && keyEnv != "" && (cfg.Provider != ProviderOpenAICompatible || cfg.APIKeyEnv != "") {
		return nil, fmt.Errorf("model %s:%s: %w: the environment variable %s is not set", cfg.Provider, cfg.Name, ErrNoKey, keyEnv)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	b := base{provider: cfg.Provider, cfg: cfg, key: key, keyEnv: keyEnv, hc: wrapClient(hc), opts: o}
	switch cfg.Provider {
	case ProviderAnthropic:
		return newAnthropic(b), nil
	case ProviderOpenAI, ProviderOpenAICompatible:
		return newOpenAIChat(b), nil
	case ProviderOpenAIResponses:
		return newOpenAIResponses(b), nil
	case ProviderGemini:
		return newGemini(b)
	}
	return nil, fmt.Errorf("model provider %q: not built", cfg.Provider)
}
