package oracle

import "unicode/utf8"

// isInvisible reports whether r is a soft hyphen or a zero-width
// character: not seen by a reader inside markup (issue 30, stop 59).
func isInvisible(r rune) bool {
	return r == '\u00AD' || r >= '\u200B' && r <= '\u200F' || r >= '\u2060' && r <= '\u2064' || r == '\uFEFF'
}

// visiblePrefix is the first n bytes of s that are in no invisible
// character (fewer where s ends first), and where in s the last ends.
func visiblePrefix(s string, n int) (string, int) {
	var b []byte
	j := 0
	for len(b) < n && j < len(s) {
		if r, size := utf8.DecodeRuneInString(s[j:]); r != utf8.RuneError && isInvisible(r) {
			j += size
			continue
		}
		b = append(b, s[j])
		j++
	}
	return string(b), j
}

// hasMarkup reports whether s starts with the markup spelling m (lower
// case): its first three bytes as they are, the rest with invisible
// characters taken out, ASCII letters in either case.
func hasMarkup(s, m string) bool {
	if len(s) < len(m) || !hasFoldPrefix(s, m[:min(3, len(m))]) {
		return false
	}
	v, _ := visiblePrefix(s[min(3, len(m)):], len(m)-min(3, len(m)))
	return len(v) == len(m)-min(3, len(m)) && hasFoldPrefix(v, m[min(3, len(m)):])
}
