package main

import (
	"slices"
	"strings"
)

// replCommands are the slash commands, for /help and completion.
var replCommands = []string{"/approvals", "/call", "/help", "/quit", "/session", "/stop", "/subagents", "/tasks", "/tools", "/usage"}

// replArgs are the words each command takes first.
var replArgs = map[string][]string{
	"/tools":     {"quiet", "summary", "full"},
	"/tasks":     {"list", "show", "logs", "wait", "cancel"},
	"/session":   {"list", "new", "resume"},
	"/approvals": {"revoke"},
}

// completer completes slash commands, their first words and, after
// /call, tool names. tools is asked each time (the catalog can change).
type completer struct {
	tools func() []string
}

// Do implements readline.AutoCompleter: the candidates' missing suffixes
// and how many runes of the line they complete.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	typed := string(line[:pos])
	if !strings.HasPrefix(typed, "/") {
		return nil, 0
	}
	cmd, rest, spaced := strings.Cut(typed, " ")
	if !spaced {
		return suffixes(replCommands, cmd, " ")
	}
	words := replArgs[cmd]
	if cmd == "/call" && c.tools != nil {
		words = c.tools()
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
