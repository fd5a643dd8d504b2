package core

import (
	"net/url"
	"regexp"

	"go.yaml.in/yaml/v3"
)

// ModelConfig is agent.yaml's `model:` block. Its fields are those of
// providers.Config, in the same order, so the caller converts with
// providers.Config(*core.Model); core does not import providers, which
// would link every model SDK into whatever loads a core (the launcher's
// fast `tools list` among them).
type ModelConfig struct {
	Provider        string
	Name            string
	BaseURL         string
	APIKeyEnv       string
	MaxOutputTokens int
	Temperature     *float64
	ContextWindow   int
	ThinkingBudget  int
}

// ModelProviders are the providers `model.provider` takes (the providers
// package checks that its list and this one agree).
var ModelProviders = []string{"anthropic", "openai", "openai-responses", "openai-compatible", "gemini"}

// modelKeys are the keys of the `model:` mapping.
var modelKeys = []string{"provider", "name", "base_url", "api_key_env", "max_output_tokens", "temperature", "context_window", "thinking_budget"}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// model decodes `model: {provider: P, name: N, ...}`.
func (d *decoder) model(n *yaml.Node, field string) (*ModelConfig, error) {
	entries, err := d.mapping(n, field)
	if err != nil {
		return nil, err
	}
	m := &ModelConfig{}
	for _, e := range entries {
		switch e.name {
		case "provider":
			m.Provider, err = d.str(e.val, e.field)
			if err == nil && !contains(ModelProviders, m.Provider) {
				err = d.errorf(e.val, e.field, "%s", unknownMsg("model provider", m.Provider, "known providers", ModelProviders))
			}
		case "name":
			m.Name, err = d.str(e.val, e.field)
		case "base_url":
			m.BaseURL, err = d.str(e.val, e.field)
			if err == nil {
				u, perr := url.Parse(m.BaseURL)
				switch {
				case perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
					err = d.errorf(e.val, e.field, "%q is not an http(s) URL, e.g. http://127.0.0.1:11434/v1", clip(m.BaseURL))
				case u.User != nil:
					err = d.errorf(e.val, e.field, "must not hold credentials; keys come only from the environment (api_key_env)")
				}
			}
		case "api_key_env":
			m.APIKeyEnv, err = d.str(e.val, e.field)
			if err == nil && !envName.MatchString(m.APIKeyEnv) {
				err = d.errorf(e.val, e.field, "%q is not an environment variable name", clip(m.APIKeyEnv))
			}
		case "api_key", "key", "apikey", "api-key", "token":
			err = d.errorf(e.key, e.field, "a key is never written in agent.yaml; export it and name the variable with api_key_env (e.g. api_key_env: ANTHROPIC_API_KEY)")
		case "max_output_tokens":
			m.MaxOutputTokens, err = d.positiveInt(e.val, e.field)
		case "context_window":
			m.ContextWindow, err = d.positiveInt(e.val, e.field)
		case "thinking_budget":
			m.ThinkingBudget, err = d.positiveInt(e.val, e.field)
			if err == nil && m.ThinkingBudget < 1024 {
				err = d.errorf(e.val, e.field, "%d is below Anthropic's minimum of 1024 thinking tokens", m.ThinkingBudget)
			}
		case "temperature":
			var t float64
			t, err = d.number(e.val, e.field)
			if err == nil && (t < 0 || t > 2) {
				err = d.errorf(e.val, e.field, "%v is outside 0..2", t)
			}
			m.Temperature = &t
		default:
			err = d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", modelKeys))
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case m.Provider == "":
		return nil, d.errorf(n, field, "names no provider; add provider: (one of anthropic, openai, openai-responses, openai-compatible, gemini)")
	case m.Name == "":
		return nil, d.errorf(n, field, "names no model; add name: (e.g. name: claude-sonnet-4-5)")
	case m.ThinkingBudget > 0 && m.Provider != "anthropic":
		return nil, d.errorf(n, field, "thinking_budget turns on Anthropic extended thinking; provider %s takes none", m.Provider)
	case m.ThinkingBudget > 0 && m.Temperature != nil:
		return nil, d.errorf(n, field, "thinking_budget and temperature together: Anthropic refuses a temperature with extended thinking; drop one")
	case m.Provider == "openai-compatible" && m.BaseURL == "":
		return nil, d.errorf(n, field, "openai-compatible needs base_url (e.g. http://127.0.0.1:11434/v1 for Ollama)")
	}
	return m, nil
}

// positiveInt returns an integer scalar above 0.
func (d *decoder) positiveInt(n *yaml.Node, field string) (int, error) {
	if err := d.noAlias(n, field); err != nil {
		return 0, err
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return 0, d.wrongType(n, field, "a whole number")
	}
	var v int
	if err := n.Decode(&v); err != nil || v <= 0 || v > 1<<30 {
		return 0, d.errorf(n, field, "want a whole number from 1 to %d, got %s", 1<<30, clip(n.Value))
	}
	return v, nil
}

// number returns an integer or float scalar.
func (d *decoder) number(n *yaml.Node, field string) (float64, error) {
	if err := d.noAlias(n, field); err != nil {
		return 0, err
	}
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return 0, d.wrongType(n, field, "a number")
	}
	var v float64
	if err := n.Decode(&v); err != nil {
		return 0, d.errorf(n, field, "want a number: %v", err)
	}
	return v, nil
}
