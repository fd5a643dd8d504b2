package catalog

import (
	"fmt"
	"strings"
)

// Provider is a model API whose tool definition shape the catalog can emit.
type Provider string

const (
	ProviderOpenAI    Provider = "openai"
	ProviderAnthropic Provider = "anthropic"
	ProviderGemini    Provider = "gemini"
)

// Providers lists the supported providers.
var Providers = []Provider{ProviderOpenAI, ProviderAnthropic, ProviderGemini}

// ParseProvider reads a provider name, case-insensitively.
func ParseProvider(s string) (Provider, error) {
	p := Provider(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Providers {
		if p == known {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown provider %q (want openai, anthropic or gemini)", s)
}

// Definitions renders every entry but the hidden deferred ones (Defer) as a
// tool definition for the provider, in
// catalog order. Each call returns fresh maps the caller may change.
//
//   - openai: a Chat Completions function tool
//     {"type":"function","function":{"name","description","parameters","strict"}},
//     strict true only when the schema is strict-mode compatible.
//   - anthropic: {"name","description","input_schema"}.
//   - gemini: a function declaration {"name","description","parametersJsonSchema"};
//     the caller puts the list under tools[].functionDeclarations.
func (c *Catalog) Definitions(p Provider) ([]map[string]any, error) {
	var render func(*Entry) map[string]any
	switch p {
	case ProviderOpenAI:
		render = openAIDefinition
	case ProviderAnthropic:
		render = anthropicDefinition
	case ProviderGemini:
		render = geminiDefinition
	default:
		_, err := ParseProvider(string(p))
		return nil, err
	}
	offered := c.Offered()
	defs := make([]map[string]any, 0, len(offered))
	for _, e := range offered {
		defs = append(defs, render(e))
	}
	return defs, nil
}

// Offered lists the entries the provider definitions hold, in catalog
// order: every entry but the hidden deferred ones (search_capabilities
// activates those). A caller that needs a definition's parts rather than
// a provider's map takes them from these entries (Schema.JSON is the
// schema Definitions embeds, byte for byte once encoded).
func (c *Catalog) Offered() []*Entry {
	out := make([]*Entry, 0, len(c.entries))
	for _, e := range c.entries {
		if !c.Hidden(e.Spec.Name) {
			out = append(out, e)
		}
	}
	return out
}

func openAIDefinition(e *Entry) map[string]any {
	return map[string]any{
		"type": "function",
		"function": map[string]any{
			"name":        e.Spec.Name,
			"description": e.Spec.Description,
			"parameters":  e.Schema.Document(),
			"strict":      e.StrictCompatible,
		},
	}
}

func anthropicDefinition(e *Entry) map[string]any {
	return map[string]any{
		"name":         e.Spec.Name,
		"description":  e.Spec.Description,
		"input_schema": e.Schema.Document(),
	}
}

func geminiDefinition(e *Entry) map[string]any {
	return map[string]any{
		"name":                 e.Spec.Name,
		"description":          e.Spec.Description,
		"parametersJsonSchema": e.Schema.Document(),
	}
}
