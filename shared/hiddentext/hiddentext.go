// Package hiddentext names the characters that make a model read what
// the operator cannot see: Unicode tag characters (U+E0000–U+E007F),
// which spell ASCII no terminal shows ("ASCII smuggling"), and the bidi
// embedding, override and isolate controls, which make a terminal show
// other text than the model reads (untrusted.Screen's unicode_tags and
// bidi_controls). Text that reaches the model outside any envelope (an
// MCP tool's definition, a skill) may hold none of them.
package hiddentext

// Is reports whether r is such a character.
func Is(r rune) bool {
	return r >= 0xE0000 && r <= 0xE007F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// First is the first such character of s; false when there is none.
func First(s string) (rune, bool) {
	for _, r := range s {
		if Is(r) {
			return r, true
		}
	}
	return 0, false
}
