// Package textclip shortens text quoted in messages, errors and events.
package textclip

import "unicode/utf8"

// Clip is s when it is at most n bytes, else its first n bytes or fewer,
// cut on a rune boundary, followed by "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:Cut(s, n)] + "…"
}

// Cut is where to cut s so that it keeps at most n bytes and no rune is
// split: n, or the start of the rune n falls inside (len(s) when n is past
// the end).
func Cut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
