package argcheck

import (
	"strconv"
	"strings"

	"demiurge.dev/catalog"
)

func argError(path, msg string) *catalog.ArgumentError {
	return &catalog.ArgumentError{Problems: []catalog.ArgumentProblem{{Path: path, Message: msg}}}
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
