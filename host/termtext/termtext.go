// Package termtext is the one sanitizer of untrusted text a front end
// prints on a terminal (tool cards and streams, run, tasks logs, sessions,
// the interactive session): what a file, a command or a model wrote must
// not drive the operator's terminal (OSC 52 clipboard writes, clear
// screen, cursor moves, bidi overrides).
package termtext

import (
	"strings"
	"unicode"
)

// Printable keeps newlines and tabs, replaces every other control
// character (C0, DEL, C1, so ESC and CSI too) and every bidi control with
// '?', and cuts the text after limit bytes with "…".
func Printable(s string, limit int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= limit {
			b.WriteString("…")
			break
		}
		if Replaced(r) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Replaced says whether Printable replaces r: every control character but
// newline and tab, and every bidi control. Text that must reach a terminal
// as it is (a core's names, a run's goal) is refused for holding one.
func Replaced(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r))
}
