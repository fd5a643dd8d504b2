package main

import (
	"slices"
	"testing"
)

func TestIntersperse(t *testing.T) {
	app := newApp()
	for _, tc := range []struct{ in, want []string }{
		{[]string{"d", "tools", "show", "read_file", "--json"}, []string{"d", "tools", "show", "--json", "read_file"}},
		{[]string{"d", "--core", "x", "tools", "list", "--provider", "openai"}, []string{"d", "--core", "x", "tools", "list", "--provider", "openai"}},
		{[]string{"d", "tools", "call", "read_file", `{"a":1}`, "--json"}, []string{"d", "tools", "call", "--json", "read_file", `{"a":1}`}},
		{[]string{"d", "tools", "call", "x", "--", "--json"}, []string{"d", "tools", "call", "x", "--", "--json"}},
		{[]string{"d", "audit", "--limit", "5"}, []string{"d", "audit", "--limit", "5"}},
		{[]string{"d", "tools", "show", "-unknown"}, []string{"d", "tools", "show", "-unknown"}},
		{[]string{"d"}, []string{"d"}},
		// Global flags after a command name move to the front.
		{[]string{"d", "tools", "call", "x", "{}", "--approve", "allow:x"}, []string{"d", "--approve", "allow:x", "tools", "call", "x", "{}"}},
		{[]string{"d", "tools", "--tool-display", "quiet", "list"}, []string{"d", "--tool-display", "quiet", "tools", "list"}},
		{[]string{"d", "tools", "list", "--no-color", "--core=c"}, []string{"d", "--no-color", "--core=c", "tools", "list"}},
		// A command's own flag of a global's name stays the command's.
		{[]string{"d", "policy", "check-command", "--workspace", "w", "--", "ls"}, []string{"d", "policy", "check-command", "--workspace", "w", "--", "ls"}},
		{[]string{"d", "tools", "call", "x", "--", "--approve", "a"}, []string{"d", "tools", "call", "x", "--", "--approve", "a"}},
	} {
		if got := intersperse(app, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("intersperse(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
