package catalog

import (
	"strings"
	"testing"
)

func TestValidToolName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"read_file", true},
		{"_private", true},
		{"docs__search-docs", true},
		{"A", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"1tool", false},       // Gemini: must start with a letter or underscore
		{"-tool", false},       // Gemini: same
		{"docs.search", false}, // Gemini allows dots, OpenAI and Anthropic do not
		{"docs:search", false},
		{"read file", false},
		{"résumé", false},
		{"tool\n", false},
	}
	for _, tt := range tests {
		err := ValidToolName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidToolName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}
