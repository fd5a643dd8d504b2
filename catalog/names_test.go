package catalog

import (
	"regexp"
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

// isToolName is the regexp it replaced, written out.
var toolNameRegexp = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

func FuzzIsToolName(f *testing.F) {
	for _, s := range []string{"read_file", "_x", "-x", "9x", "a-b_C9", "", "é", strings.Repeat("a", 64), strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := isToolName(name), toolNameRegexp.MatchString(name); got != want {
			t.Fatalf("isToolName(%q) = %v, the regexp says %v", name, got, want)
		}
	})
}

func TestValidToolsetName(t *testing.T) {
	for name, ok := range map[string]bool{
		"textstats": true, "my_tools2": true, "a": true, strings.Repeat("a", 64): true,
		"": false, "Text": false, "2x": false, "_x": false, "a-b": false, "a.b": false, "a/b": false, strings.Repeat("a", 65): false, "ünï": false,
	} {
		if err := ValidToolsetName(name); (err == nil) != ok {
			t.Errorf("ValidToolsetName(%q) = %v, want ok %v", name, err, ok)
		}
	}
}
