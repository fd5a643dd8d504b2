package providers

import "strings"

// DefaultContextWindow is assumed for a model of no known family: small
// enough that compaction starts before any current model refuses.
const DefaultContextWindow = 32_000

// knownWindows maps model name prefixes to their context windows (the
// providers' published figures); the longest matching prefix wins.
var knownWindows = []struct {
	prefix string
	tokens int
}{
	{"claude-", 200_000},
	{"gpt-5", 400_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"gemini-", 1_048_576},
	{"qwen3", 32_768},
	{"llama3", 8_192},
	{"llama-3", 8_192},
}

// contextWindow is the configured window, else the model family's, else
// DefaultContextWindow.
func contextWindow(cfg Config) int {
	if cfg.ContextWindow > 0 {
		return cfg.ContextWindow
	}
	best, n := 0, 0
	for _, k := range knownWindows {
		if strings.HasPrefix(strings.ToLower(cfg.Name), k.prefix) && len(k.prefix) > n {
			best, n = k.tokens, len(k.prefix)
		}
	}
	if best > 0 {
		return best
	}
	return DefaultContextWindow
}
