package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEPluginSnippetIsTheExample: the README's toolset snippet shows
// the parameter type and the whole tool function of sdk/example/textstats
// exactly as they are there (which its tests run), so an author who copies
// it opens the path the host checked (ctx.Open), not the argument as given.
func TestREADMEPluginSnippetIsTheExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("../../sdk/example/textstats/text_stats.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	var snippet string
	for _, b := range blocks {
		if strings.Contains(b[1], "func countText(") {
			snippet = b[1]
		}
	}
	if snippet == "" {
		t.Fatal("the README has no Go snippet with func countText")
	}
	for _, start := range []string{"type textStatsParams struct {", "func countText("} {
		got, want := topLevel(snippet, start), topLevel(string(example), start)
		if got == "" || got != want {
			t.Errorf("README's %s...:\n%s\nthe example's:\n%s", start, got, want)
		}
	}
	if !strings.Contains(topLevel(snippet, "func countText("), `ctx.Open("path")`) {
		t.Error("the README's countText does not open the host-resolved path")
	}
}

// topLevel is the declaration of src that starts with a line beginning
// with start, up to its closing brace at column 0.
func topLevel(src, start string) string {
	src = "\n" + src
	i := strings.Index(src, "\n"+start)
	if i < 0 {
		return ""
	}
	rest := src[i+1:]
	j := strings.Index(rest, "\n}")
	if j < 0 {
		return ""
	}
	return rest[:j+2]
}
