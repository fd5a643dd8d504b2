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
	} {
		if got := intersperse(app, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("intersperse(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
