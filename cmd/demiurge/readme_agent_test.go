package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/providers"
)

// TestReadmeAgentExamples checks the commands of the README's agent
// section against the real app: every command path exists, every flag is
// one the command or the app takes, every --model value parses. (The
// testscripts run_*.txtar run the same commands against a scripted model.)
func TestReadmeAgentExamples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## The agent: `run` and `sessions`\n")
	if !ok {
		t.Fatal("README has no agent section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	app := newApp()
	lines := 0
	for _, line := range strings.Split(sec, "\n") {
		_, cmd, ok := strings.Cut(line, "bin/demiurge ")
		if !ok {
			continue
		}
		cmd, _, _ = strings.Cut(cmd, "#")
		lines++
		checkExample(t, app, strings.Fields(cmd))
	}
	if lines < 6 {
		t.Fatalf("only %d examples found", lines)
	}
}

var quoted = regexp.MustCompile(`^["']`)

func checkExample(t *testing.T, app *cli.App, args []string) {
	t.Helper()
	flags, cmds := app.Flags, app.Commands
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case quoted.MatchString(a) || a == "..." || strings.Contains(a, "|"):
			return // the prompt or alternatives: the rest are arguments
		case strings.HasPrefix(a, "--"):
			name := strings.TrimPrefix(a, "--")
			if !isFlag(flags, a) && !isFlag(app.Flags, a) {
				t.Errorf("README example %q: flag --%s is not one of this command's", strings.Join(args, " "), name)
			}
			if name == "model" && i+1 < len(args) && args[i+1] != "..." {
				if _, _, err := providers.ParseModel(args[i+1]); err != nil {
					t.Errorf("README --model %s: %v", args[i+1], err)
				}
			}
			if takesValue(flags, a) || takesValue(app.Flags, a) {
				i++
			}
		default:
			c := findCommand(cmds, a)
			if c == nil {
				if len(cmds) == 0 {
					return // positional arguments of the leaf command
				}
				t.Errorf("README example %q: no command %q", strings.Join(args, " "), a)
				return
			}
			flags, cmds = c.Flags, c.Subcommands
		}
	}
}
