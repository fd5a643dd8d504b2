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

// Printable keeps newlines, tabs and graphic characters (letters, marks,
// numbers, punctuation, symbols, spaces), replaces every other character
// with '?' (C0, DEL, C1, so ESC and CSI; bidi controls; Unicode tag
// characters, zero-width characters and every other format character;
// line and paragraph separators; private-use, surrogate and unassigned
// code points), and cuts the text after limit bytes with "…".
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

// Replaced says whether Printable replaces r: a closed world, every
// character but newline, tab and the graphic ones (a list of dangerous
// characters, controls and bidi controls, missed tag characters, which
// hide text from the operator and spell instructions to a model, and
// zero-width ones). Text that must reach a terminal as it is (a core's
// names, a run's goal) is refused for holding one.
func Replaced(r rune) bool {
	return r != '\n' && r != '\t' && !unicode.IsGraphic(r)
}
