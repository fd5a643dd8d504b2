package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestREADMEExamplesAreRunByScripts keeps the README from going stale:
// every `bin/demiurge ...` example in its sh blocks must be run by some
// testscript with the same command path and every flag the example uses.
func TestREADMEExamplesAreRunByScripts(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob("testdata/script/*.txtar")
	var runs [][]string // each script line that runs demiurge: its words after "demiurge"
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if _, rest, ok := strings.Cut(line, "demiurge "); ok && (strings.HasPrefix(line, "exec ") || strings.HasPrefix(line, "! exec ") || strings.HasPrefix(line, "exits ")) {
				runs = append(runs, strings.Fields(rest))
			}
		}
	}
	app := newApp()
	examples := readmeExamples(string(readme))
	if len(examples) < 20 {
		t.Fatalf("found only %d README examples; is the extraction broken?", len(examples))
	}
	for _, ex := range examples {
		path, flags := commandPath(app, ex)
		if !coveredBy(runs, app, path, flags) {
			t.Errorf("README example %q (command %q, flags %q) is run by no testscript", strings.Join(ex, " "), path, flags)
		}
	}
}

var comment = regexp.MustCompile(`\s+#.*$`)

// readmeExamples are the README's `bin/demiurge` lines in sh blocks, one
// per alternative of "a | b | c", comments dropped.
func readmeExamples(readme string) [][]string {
	var out [][]string
	inSh := false
	for _, line := range strings.Split(readme, "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		}
		i := strings.Index(line, "bin/demiurge")
		if !inSh || i < 0 {
			continue
		}
		cmd := comment.ReplaceAllString(line[i+len("bin/demiurge"):], "")
		words := strings.Fields(cmd)
		alts := strings.Split(strings.Join(words, " "), " | ")
		prefix := []string(nil)
		for j, alt := range alts {
			w := strings.Fields(alt)
			if j == 0 && len(w) > 0 {
				prefix = w[:1] // "tasks list | show ID": the later ones are tasks subcommands
				out = append(out, w)
				continue
			}
			out = append(out, append(append([]string(nil), prefix...), w...))
		}
	}
	return out
}

// commandPath is the example's command names and the flags it uses.
func commandPath(app *cli.App, words []string) (path, flags []string) {
	cmds, levelFlags := app.Commands, app.Flags
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "--") {
			name, _, _ := strings.Cut(w, "=")
			flags = append(flags, name)
			if takesValue(levelFlags, w) || takesValue(app.Flags, w) {
				i++ // its value
			}
			continue
		}
		if c := findCommand(cmds, w); c != nil && cmds != nil {
			path = append(path, w)
			cmds, levelFlags = c.Subcommands, c.Flags
		} else {
			cmds = nil
		}
	}
	return path, flags
}

func coveredBy(runs [][]string, app *cli.App, path, flags []string) bool {
	for _, r := range runs {
		p, f := commandPath(app, r)
		if strings.Join(p, " ") != strings.Join(path, " ") {
			continue
		}
		all := true
		for _, want := range flags {
			if !contains(f, want) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
