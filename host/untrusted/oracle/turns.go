package oracle

import (
	"strings"
	"unicode/utf8"
)

// turnAt reports the turn marker at s[i], if any, and where it starts
// (issue 30, stop 59): s[i] is the last '\n' or '\r' before a '\n' in a
// run of '\n', "\r\n", ' ' and '\t' (the blank line and the spaces
// about it) that holds two '\n' or more and is followed by "human",
// "assistant" or "system" in any case, spaces or tabs, and ':' or a
// look-alike of it. It is reported at the run's first line end. Written
// as the run is read, whole, at each line end: the screener's reads it
// once.
func turnAt(s string, i int) (int, bool) {
	space := func(p int) bool { // a lone '\r' ends the run
		return strings.IndexByte("\n \t", s[p]) >= 0 || strings.HasPrefix(s[p:], "\r\n")
	}
	gate := func(p int) bool { return (s[p] == '\n' || s[p] == '\r') && p+1 < len(s) && s[p+1] == '\n' }
	a, b := i, i
	for a > 0 && space(a-1) {
		a--
	}
	for b < len(s) && space(b) {
		b++
	}
	last := -1
	for p := a; p < b; p++ {
		if gate(p) {
			last = p
		}
	}
	run := s[a:b]
	if last != i || strings.Count(run, "\n") < 2 {
		return 0, false
	}
	if b >= len(s) {
		return 0, false
	}
	for _, role := range []string{"human", "assistant", "system"} {
		if s[b]|0x20 != role[0] {
			continue
		}
		// The role's other letters with invisible characters taken out.
		v, end := visiblePrefix(s[b+1:], len(role)-1)
		if strings.ToLower(v) != role[1:] {
			return 0, false
		}
		after := strings.TrimLeftFunc(s[b+1+end:], func(r rune) bool { return r == ' ' || r == '\t' || isInvisible(r) })
		c, _ := utf8.DecodeRuneInString(after)
		if strings.ContainsRune(":：﹕︓︰∶꞉ꓽ˸ː։׃܃܄ःઃ᛬᠃᠉⁚", c) {
			return a + strings.IndexAny(run, "\r\n"), true
		}
		return 0, false
	}
	return 0, false
}
