package catalog

import (
	"strconv"
	"strings"
)

// ArgumentError says what is wrong with a call's arguments, in words a
// model can act on: which argument, what was expected, what was given.
type ArgumentError struct {
	Problems []ArgumentProblem
}

// ArgumentProblem is one thing wrong with the arguments.
type ArgumentProblem struct {
	// Path is the argument's path ("limit", "edits[0].old"); empty when the
	// problem concerns the arguments document as a whole.
	Path string
	// Message is the complete sentence for the model.
	Message string
}

// maxReportedProblems keeps an error short: a model fixes the first few and
// retries; a wall of text helps nobody.
const maxReportedProblems = 5

func (e *ArgumentError) Error() string {
	msgs := make([]string, 0, maxReportedProblems+1)
	for i, p := range e.Problems {
		if i == maxReportedProblems {
			msgs = append(msgs, "and "+strconv.Itoa(len(e.Problems)-i)+" more")
			break
		}
		msgs = append(msgs, p.Message)
	}
	return strings.Join(msgs, "; ")
}

func argError(path, msg string) *ArgumentError {
	return &ArgumentError{Problems: []ArgumentProblem{{Path: path, Message: msg}}}
}

// formatPath renders an instance location as the model wrote it: keys
// joined by dots, array positions in brackets. It walks the value so that
// an object key "0" and an array index 0 are told apart.
func formatPath(root any, loc []string) string {
	var b strings.Builder
	cur := root
	for _, seg := range loc {
		switch c := cur.(type) {
		case []any:
			b.WriteString("[" + seg + "]")
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(shortKey(seg))
			if m, ok := c.(map[string]any); ok {
				cur = m[seg]
			} else {
				cur = nil
			}
		}
	}
	return shortPath(b.String())
}

// joinPath appends a key or index to an already formatted path.
func joinPath(base, key string, index bool) string {
	key = shortKey(key)
	switch {
	case index:
		return shortPath(base + "[" + key + "]")
	case base == "":
		return key
	default:
		return shortPath(base + "." + key)
	}
}

// maxPathInMessage bounds a whole argument path echoed back; the deepest
// part is kept because it says where to look.
const maxPathInMessage = 160

func shortPath(p string) string {
	if len(p) <= maxPathInMessage {
		return p
	}
	r := []rune(p)
	if len(r) <= maxPathInMessage {
		return p
	}
	return "…" + string(r[len(r)-maxPathInMessage:])
}

// preview renders a scalar for a message, bounded so that a huge string
// argument does not come back to the model whole.
func preview(v any) string {
	const max = 40
	switch t := v.(type) {
	case string:
		r := []rune(t)
		if len(r) > max {
			return strconv.Quote(string(r[:max])) + "…"
		}
		return strconv.Quote(t)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	default:
		s := jsonText(v)
		if len(s) > max {
			return s[:max] + "…"
		}
		return s
	}
}

// maxKeyInMessage bounds an argument name echoed back: keys are model
// input and may be arbitrarily long.
const maxKeyInMessage = 64

func shortKey(k string) string {
	if len(k) <= maxKeyInMessage {
		return k
	}
	r := []rune(k)
	if len(r) <= maxKeyInMessage {
		return k
	}
	return string(r[:maxKeyInMessage]) + "…"
}
