package redact

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The token patterns run only on the lines that hold one of their anchors.
// Over a whole large text a pattern runs in Go's NFA matcher, about 190 ms a
// MiB, so prose that merely says "secret" or "bearer" paid that for every
// case-insensitive entry it named; the lines holding the word are a few
// hundred bytes. The result is the whole-text run's, byte for byte
// (TestAnchorLinesAsWholeText, FuzzAnchorLinesAsWholeText), because:
//
//   - every match holds one of its entry's anchors (the table's contract),
//     and no pattern but the PEM block's matches a newline or asserts a
//     text or line edge (TestTokenPatternsStayOnALine), except the AWS
//     secret key's tail (?:[^A-Za-z0-9/+=]|$), which may take the newline
//     ending the line: on the line alone `$` matches there instead, the
//     replaced group is the same and the next match starts on the next line
//     either way. So every match lies on a line holding an anchor;
//   - a run of such lines starts after a newline or at the text's start and
//     ends before a newline or at its end, so `\b` sees the same non-word
//     byte (or edge) at its edges, and the leftmost-first matches found in it
//     are those the whole text has there: none reaches into it from outside;
//   - a newline byte is never inside a UTF-8 sequence, so cutting at one
//     decodes every rune (and every invalid byte) as the whole text does.
//
// The PEM block (crossesLines) may run to the end of the text: it runs from
// the start of the line holding its first anchor, where its first match
// begins at the earliest (`-----BEGIN[ A-Z0-9]*` stays on the anchor's line).

// lineSpan is s[start:end]: one or more whole lines, without the newline
// that ends the last.
type lineSpan struct{ start, end int }

// replaceOnAnchorLines puts <redacted:KIND> for the replaced group of each
// match of t's pattern in s, running the pattern on t's anchor lines alone;
// the result is the whole-text run's (replaceWholeText, in the tests).
func (t *tokenKind) replaceOnAnchorLines(s string) string {
	var buf [8]lineSpan
	out, _ := t.replaceOnLines(s, t.anchorLines(s, buf[:0]))
	return out
}

// replaceOnLines puts <redacted:KIND> for the replaced group of each match
// of t's pattern on the lines of s, which are t's anchor lines, and reports
// whether it replaced anything.
func (t *tokenKind) replaceOnLines(s string, lines []lineSpan) (string, bool) {
	var b strings.Builder
	last, marker := 0, "<redacted:"+t.kind+">"
	for _, sp := range lines {
		for _, loc := range t.re().FindAllStringSubmatchIndex(s[sp.start:sp.end], -1) {
			start, end := loc[2*t.group], loc[2*t.group+1]
			if start < 0 {
				continue
			}
			b.WriteString(s[last : sp.start+start])
			b.WriteString(marker)
			last = sp.start + end
		}
	}
	if b.Len() == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// hitLines appends to spans the lines of s holding the anchors of table
// entry kind (t) that hits records, which are every anchor in s in the
// order of the text (scanAnchors): the lines anchorLines finds, without
// searching for them.
func (t *tokenKind) hitLines(s string, kind int, hits []anchorHit, spans []lineSpan) []lineSpan {
	for _, h := range hits {
		n := len(spans)
		if h.kind != kind || n > 0 && h.at < spans[n-1].end {
			continue // another entry's, or on a line already taken
		}
		sp := lineSpan{strings.LastIndexByte(s[:h.at], '\n') + 1, len(s)}
		if t.crossesLines {
			return append(spans, sp)
		}
		if i := strings.IndexByte(s[h.at:], '\n'); i >= 0 {
			sp.end = h.at + i
		}
		if n > 0 && sp.start == spans[n-1].end+1 {
			spans[n-1].end = sp.end
			continue
		}
		spans = append(spans, sp)
	}
	return spans
}

// anchorLines appends to spans the lines of s holding one of t's anchors,
// in order, adjacent ones joined; for a crossesLines entry, everything from
// the first anchor's line on.
func (t *tokenKind) anchorLines(s string, spans []lineSpan) []lineSpan {
	for _, a := range t.anchors {
		var firsts [4]byte
		for _, first := range t.firstBytes(a, firsts[:0]) {
			for from := 0; from < len(s); {
				i := t.index(s[from:], a, first)
				if i < 0 {
					break
				}
				i += from
				sp := lineSpan{strings.LastIndexByte(s[:i], '\n') + 1, len(s)}
				if t.crossesLines {
					if len(spans) == 0 || sp.start < spans[0].start {
						spans = append(spans[:0], sp)
					}
					break
				}
				if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
					sp.end = i + n
				}
				spans = append(spans, sp)
				from = sp.end + 1
			}
		}
	}
	slices.SortFunc(spans, func(x, y lineSpan) int { return x.start - y.start })
	joined := spans[:0]
	for _, sp := range spans {
		if n := len(joined); n > 0 && sp.start <= joined[n-1].end+1 {
			joined[n-1].end = max(joined[n-1].end, sp.end)
			continue
		}
		joined = append(joined, sp)
	}
	return joined
}

// firstBytes appends to dst the bytes a spelling of anchor begins with:
// its first byte, and for a case-insensitive entry the first byte of each
// rune of its first letter's simple-fold orbit (spellings, without
// allocating: S and ſ for s, K and K for k).
func (t *tokenKind) firstBytes(anchor string, dst []byte) []byte {
	c, enc := rune(anchor[0]), [utf8.UTFMax]byte{}
	dst = append(dst, anchor[0])
	for f := unicode.SimpleFold(c); t.fold && f != c; f = unicode.SimpleFold(f) {
		utf8.EncodeRune(enc[:], f)
		dst = append(dst, enc[0])
	}
	return dst
}

// index is the first position in s of anchor spelled from the byte first
// on: where candidates finds it, by simple folding for a case-insensitive
// entry (first is then the first byte of one spelling of its first letter).
func (t *tokenKind) index(s, anchor string, first byte) int {
	if !t.fold {
		return strings.Index(s, anchor)
	}
	for at := 0; ; at++ {
		i := strings.IndexByte(s[at:], first)
		if i < 0 {
			return -1
		}
		if at += i; hasFoldPrefix(s[at:], anchor) {
			return at
		}
	}
}
