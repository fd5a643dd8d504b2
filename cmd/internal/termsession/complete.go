package termsession

import (
	"slices"
	"strings"
)

// Commands are the slash commands, for /help and completion.
var Commands = []string{"/approvals", "/call", "/help", "/quit", "/session", "/stop", "/subagents", "/tasks", "/tools", "/usage"}

// commandArgs are the words each command takes first.
var commandArgs = map[string][]string{
	"/tools":     {"quiet", "summary", "full"},
	"/tasks":     {"list", "show", "logs", "wait", "cancel"},
	"/session":   {"list", "new", "resume"},
	"/approvals": {"revoke"},
}

// Completer completes slash commands, their first words and, after
// /call, tool names. tools is asked each time (the catalog can change).
type Completer struct {
	Tools func() []string
}

// Do implements readline.AutoCompleter: the candidates' missing suffixes
// and how many runes of the line they complete.
func (c Completer) Do(line []rune, pos int) ([][]rune, int) {
	typed := string(line[:pos])
	if !strings.HasPrefix(typed, "/") {
		return nil, 0
	}
	cmd, rest, spaced := strings.Cut(typed, " ")
	if !spaced {
		return suffixes(Commands, cmd, " ")
	}
	words := commandArgs[cmd]
	if cmd == "/call" && c.Tools != nil {
		words = c.Tools()
	}
	return suffixes(words, rest, " ")
}

func suffixes(words []string, prefix, after string) ([][]rune, int) {
	var out [][]rune
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, []rune(w[len(prefix):]+after))
		}
	}
	slices.SortFunc(out, func(a, b []rune) int { return strings.Compare(string(a), string(b)) })
	return out, len([]rune(prefix))
}
