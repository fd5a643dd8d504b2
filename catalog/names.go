package catalog

import (
	"fmt"
	"regexp"
)

// toolNamePattern is what every provider accepts: OpenAI and Anthropic
// allow ^[a-zA-Z0-9_-]{1,64}$, and Gemini also requires a letter or an
// underscore first.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// ValidToolName reports why name cannot be a model-visible tool name, or
// nil when OpenAI, Anthropic and Gemini all accept it.
func ValidToolName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("tool name is empty")
	case len(name) > 64:
		return fmt.Errorf("tool name %q is %d characters; providers allow at most 64", name, len(name))
	case !toolNamePattern.MatchString(name):
		return fmt.Errorf("tool name %q must start with a letter or underscore and contain only letters, digits, '_' and '-' (the rule OpenAI, Anthropic and Gemini all accept)", name)
	}
	return nil
}
