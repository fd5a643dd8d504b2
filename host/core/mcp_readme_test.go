package core

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEManifestExample: the README's manifest example parses (with
// its commented-out HTTP keys once as a url server), and names every key
// a manifest may have, so that the documentation cannot fall behind.
func TestREADMEManifestExample(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(# agent/mcp/docs.yaml\n.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("README has no ```yaml block starting with # agent/mcp/docs.yaml")
	}
	block := string(m[1])
	for _, k := range mcpKeys {
		if !regexp.MustCompile(`(?m)^#? ?` + k + `:`).MatchString(block) {
			t.Errorf("the README's manifest example does not document %s", k)
		}
	}
	if _, err := ParseMCPServer([]byte(block), "docs.yaml"); err != nil {
		t.Errorf("the stdio example: %v", err)
	}
	// As a url server: the HTTP keys uncommented, the stdio ones dropped.
	var http []string
	for _, line := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(line, "# url:"), strings.HasPrefix(line, "# headers:"):
			http = append(http, strings.TrimPrefix(line, "# "))
		case regexp.MustCompile(`^(command|args|env|cwd|sandbox):`).MatchString(line):
		default:
			http = append(http, line)
		}
	}
	if s, err := ParseMCPServer([]byte(strings.Join(http, "\n")), "docs.yaml"); err != nil || s.Transport != MCPHTTP {
		t.Errorf("the url example: %+v %v", s, err)
	}
	// The host configuration example is not a manifest: a core cannot
	// allow private addresses, the key is refused.
	if _, err := ParseMCPServer([]byte("url: http://127.0.0.1:3999/mcp\nprivate_mcp: [{server: ide, address: \"127.0.0.1:3999\"}]\n"), "ide.yaml"); err == nil || !strings.Contains(err.Error(), `unknown key "private_mcp"`) {
		t.Errorf("a manifest allowing a private address: %v", err)
	}
}
