// Package textclip shortens text quoted in messages, errors and events.
package textclip

import "unicode/utf8"

// Clip is s when it is at most n bytes, else its first n bytes or fewer,
// cut on a rune boundary, followed by "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
