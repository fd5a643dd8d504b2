package mcp

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"

	"demiurge.dev/host/approval"
)

// What a server says of itself (its error messages, its serverInfo, its
// tool names and definitions) reaches the operator's terminal: mcp list,
// mcp test, every catalog's warnings, and mcp review, where the operator
// accepts or rejects a changed definition. An escape sequence there could
// erase or overwrite lines (a changed description hidden from the review
// it is accepted in), and a newline could start a line of its own
// ("warning: ..."). So a state's text is made inert where it is made
// (approval.Inert: every control and format character written as an
// escape, one line), whichever front end prints it, and the review's diff
// writes such characters as JSON escapes.

// ShownToolName is a server's own tool name as a terminal may print it.
func ShownToolName(name string) string { return approval.Inert(name) }

// shown is s with every text that came from the server made inert. The
// slices are copied: a live connection's state is shared between turns.
func (s State) shown() State {
	s.Diagnostic = approval.Inert(s.Diagnostic)
	s.ServerInfo = approval.Inert(s.ServerInfo)
	if len(s.Refused) > 0 {
		refused := make([]string, len(s.Refused))
		for i, r := range s.Refused {
			refused[i] = approval.Inert(r)
		}
		s.Refused = refused
	}
	if len(s.Quarantined) > 0 {
		q := make([]Quarantined, len(s.Quarantined))
		for i, x := range s.Quarantined {
			x.Diagnostic = approval.Inert(x.Diagnostic)
			q[i] = x
		}
		s.Quarantined = q
	}
	return s
}

// inertJSON writes every rune of JSON text that a terminal would act on
// (C1 controls, DEL, bidi and other format characters: encoding/json
// escapes only C0) as a JSON escape, so the text stays the same JSON.
func inertJSON(s string) string {
	if strings.IndexFunc(s, actsOnTerminal) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !actsOnTerminal(r) {
			b.WriteRune(r)
			continue
		}
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// actsOnTerminal is a rune approval.Inert would escape, but the newlines
// and indentation of JSON text.
func actsOnTerminal(r rune) bool {
	return r != '\n' && r != ' ' && (!unicode.IsPrint(r) || unicode.Is(unicode.Cf, r))
}
