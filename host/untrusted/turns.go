package untrusted

import "unicode/utf8"

// Turn markers: Anthropic's legacy prompt format ("\n\nHuman:",
// "\n\nAssistant:", "\n\nSystem:"), as an injector varies it (issue 30,
// stop 59): the blank line of any line ends ("\n\n", "\r\n\r\n", the
// mixed "\n\r\n" and "\r\n\n", more lines, lines of spaces), spaces or
// tabs before the role, before the colon, and a colon of another script
// that reads as one (Unicode's confusables of ':'). The short forms
// "\n\nH:" and "\n\nA:" are not turns: the legacy API took only the
// long ones (its prompt validation), and "\n\nA:" is every FAQ's answer.
//
// The list's "\n\nhuman:" spellings and their CRLF ones (markupByLead)
// stand for these: their keys and those of turnThirds open the markup
// tests, and markupAt asks turnAt at a '\n' or '\r' instead.

// turnThirds are the third bytes of a turn marker from its last gate
// (turnAt), '\n' or '\r' and a '\n' before them: a space or tab before
// the role, or the role's first letter (after a single CRLF too, the
// '\n' before it: "\n\r\nHuman:"). A lone '\r' ends the run
// ("\n\n\rHuman:" is no turn): its key is that of '-', and most
// paragraph breaks of Markdown before a list would open the markup
// tests. The space's key is that of '`' and the tab's that of 'i': on
// npm's READMEs "\n\n```", "\n\nI" and "\n\n " are 1,450 more special
// bytes a MiB (1,951, not ~500), refused at once by markupAt
// (turnThird); ScreenFor there costs 5% more (callgrind; stop 59).
var turnThirds = []byte{' ', '\t', 'h', 'a', 's'}

// turnKeys are the third and fourth bytes of a turn marker from its
// last gate, as the quick key takes them (quickKey: the third by its
// bits 0x40 and 0x02, of which a space or tab has neither): a
// role's first two letters, or after a space or tab another, a tab, a
// lone '\n' ("\n\n \nHuman:") or a role's first letter. The third's
// bits keep the paragraphs of prose that start "Th", "Wh" or "Ca" out
// of the markup tests, which a key of the fourth alone let in (+7%
// instructions and +22% mispredicts on the guides page), and the runs
// of blank lines ("\n\n\n\n": a third '\n' is never a last gate's).
// "\n\n  " (indented code, 1,500 a MiB of npm's READMEs) keys as
// "\n\n  Human:" does: markupAt refuses it after a look (roleColonAt).
var turnKeys = [][2]byte{{'h', 'u'}, {'a', 's'}, {'s', 'y'},
	{' ', ' '}, {' ', '\t'}, {' ', '\n'}, {' ', 'h'}, {' ', 'a'}, {' ', 's'}}

// turnThird[c] reports whether c may be the third byte from a turn
// marker's last gate: a line end, a space or tab, a role's first letter.
var turnThird = func() (t [256]bool) {
	for _, c := range "\n\r \thHaAsS" {
		t[c] = true
	}
	return t
}()

// lineSpace reports whether s[k] may be in a turn marker's blank line:
// a '\n', a '\r' before one, a space or a tab. (Not a lone '\r': see
// turnThirds.)
func lineSpace(s string, k int) bool {
	c := s[k]
	return c == '\n' || c == ' ' || c == '\t' || c == '\r' && k+1 < len(s) && s[k+1] == '\n'
}

// gateAt reports whether s[i] is a '\n' or '\r' before a '\n': the
// only line ends the mask kernels keep as special bytes (specialAt).
func gateAt(s string, i int) bool {
	return (s[i] == '\n' || s[i] == '\r') && i+1 < len(s) && s[i+1] == '\n'
}

// turnAt reports the turn marker judged at s[i], and where it starts:
// i must be the last gate (gateAt) of a run of line space (lineSpace)
// that holds two '\n' or more and is followed by a role, spaces or tabs
// and a colon. It is judged at the last gate, which every path visits
// (a path steps over no line space), and reported at the run's first
// line end; a run is read once forwards from each gate to the next and
// once backwards from its last, so a long one costs no more than its
// length.
func turnAt(s string, i int) (start int, ok bool) {
	if !gateAt(s, i) {
		return 0, false
	}
	j := i + 1
	for ; j < len(s) && lineSpace(s, j); j++ {
		if gateAt(s, j) {
			return 0, false // judged at a later gate
		}
	}
	if !roleColonAt(s, j) {
		return 0, false
	}
	n := 0
	for k := i + 1; k < j; k++ {
		if s[k] == '\n' {
			n++
		}
	}
	start = i
	for k := i; k >= 0 && lineSpace(s, k); k-- {
		switch s[k] {
		case '\n':
			n++
			start = k
		case '\r':
			start = k
		}
	}
	return start, n >= 2
}

// roleColonAt reports whether s from j is a role (any case: "human",
// "assistant", "system"), spaces or tabs, and a colon or one of its
// look-alikes, invisible characters (invisibleLen) after the role's
// first letter stepped over (the first is a key of the markup tests:
// turnThirds). Most bytes after a paragraph break that open the markup
// tests are no role's first letter ("\n\n```", "\n\nIn": turnThirds'
// keys): they are refused by it alone.
func roleColonAt(s string, j int) bool {
	if j >= len(s) {
		return false
	}
	var r string
	switch s[j] | 0x20 {
	case 'h':
		r = "human"
	case 'a':
		r = "assistant"
	case 's':
		r = "system"
	default:
		return false
	}
	e := foldPrefixEnd(s[j:], r, 1)
	if e < 0 {
		return false
	}
	k := j + e
	for k < len(s) {
		if s[k] == ' ' || s[k] == '\t' {
			k++
		} else if n := invisibleLen(s[k:]); n > 0 {
			k += n
		} else {
			break
		}
	}
	if k < len(s) && s[k] == ':' {
		return true
	}
	c, _ := utf8.DecodeRuneInString(s[k:])
	return isColon(c)
}

// isColon reports whether c is ':' or a character Unicode's confusables
// (confusables.txt) give for it: full-width, small and vertical forms,
// the ratio sign, letters and punctuation of other scripts.
func isColon(c rune) bool {
	switch c {
	case ':', '\uFF1A', '\uFE55', '\uFE13', '\uFE30', '\u2236', '\uA789', '\uA4FD', '\u02F8', '\u02D0',
		'\u0589', '\u05C3', '\u0703', '\u0704', '\u0903', '\u0A83', '\u16EC', '\u1803', '\u1809', '\u205A':
		return true
	}
	return false
}
