package catalog

import (
	"fmt"
)

// isToolName is what every provider accepts: OpenAI and Anthropic allow
// ^[a-zA-Z0-9_-]{1,64}$, and Gemini also requires a letter or an underscore
// first; together ^[A-Za-z_][A-Za-z0-9_-]{0,63}$. Written out rather than
// as that regexp, whose bounded repetition cost every command a compile at
// start-up.
func isToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ValidToolName reports why name cannot be a model-visible tool name, or
// nil when OpenAI, Anthropic and Gemini all accept it.
func ValidToolName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("tool name is empty")
	case len(name) > 64:
		return fmt.Errorf("tool name %q is %d characters; providers allow at most 64", name, len(name))
	case !isToolName(name):
		return fmt.Errorf("tool name %q must start with a letter or underscore and contain only letters, digits, '_' and '-' (the rule OpenAI, Anthropic and Gemini all accept)", name)
	}
	return nil
}

// ValidToolsetName reports why name cannot be a toolset's name, or nil:
// lower case letters, digits and '_', starting with a letter, at most 64.
// It is the plugin binary's name after demiurge-toolset-, what agent.yaml's
// toolsets: names and what provenance shows.
func ValidToolsetName(name string) error {
	ok := name != "" && len(name) <= 64 && name[0] >= 'a' && name[0] <= 'z'
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if !ok {
		return fmt.Errorf("toolset name %q: use lower case letters, digits and _, starting with a letter (at most 64)", name)
	}
	return nil
}
