package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestREADMECoresAreRunByScripts: each agent.yaml the README shows (a
// yaml block that starts with "# DIR/agent.yaml") is, comments and blank
// lines aside, the agent.yaml of some testscript, which runs the README's
// commands on it: the snippets work as pasted.
func TestREADMECoresAreRunByScripts(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob("testdata/script/*.txtar")
	var cores []string
	for _, f := range scripts {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range a.Files {
			if filepath.Base(file.Name) == "agent.yaml" {
				cores = append(cores, yamlBody(string(file.Data)))
			}
		}
	}
	n := 0
	for _, b := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		first, _, _ := strings.Cut(b[1], "\n")
		if !regexp.MustCompile(`^# [\w.-]+/agent\.yaml`).MatchString(first) {
			continue
		}
		n++
		if body := yamlBody(b[1]); !contains(cores, body) {
			t.Errorf("the README's %s is the agent.yaml of no testscript:\n%s", first, body)
		}
	}
	if n < 2 {
		t.Fatalf("found %d README agent.yaml blocks; want the skills and the MCP core", n)
	}
}

// yamlBody is YAML text without comments, trailing blanks or empty lines.
func yamlBody(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if line = strings.TrimRight(line, " \t"); line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
