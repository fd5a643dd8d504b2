package manifest

import (
	"fmt"
	"strconv"

	"demiurge.dev/shared/textclip"
)

// Error is every error the parser and discovery return. It names the file,
// the line and column (0 when not tied to a place) and the dotted field,
// so that an operator goes straight to the mistake:
//
//	/core/agent/tools/project_note/tool.yaml:4:1: timeout_seconds: is a slot-only field ...
type Error struct {
	File   string
	Line   int
	Column int
	Field  string
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
		if e.Column > 0 {
			s += ":" + strconv.Itoa(e.Column)
		}
	}
	s += ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// clipLen bounds the user text quoted in one message.
const clipLen = 80

func clip(s string) string { return textclip.Clip(s, clipLen) }

// suggest returns the valid name nearest to name (edit distance at most 2),
// or "".
func suggest(name string, valid []string) string {
	best, bestD := "", 3
	for _, v := range valid {
		if d := distance(name, v); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func quoteList(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

func unknownMsg(what, name string, valid []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, clip(name))
	if n := suggest(name, valid); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	return msg + "; valid " + what + "s: " + quoteList(valid)
}
