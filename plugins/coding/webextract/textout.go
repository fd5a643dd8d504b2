package webextract

import (
	"strings"
	"unicode/utf8"
)

// textOut builds readable text from a stream of words and block breaks:
// whitespace collapsed to one space, blocks separated by one or two
// newlines, and a cap on the characters kept that still counts what it
// drops (so the result can say how much there was).
type textOut struct {
	b         strings.Builder
	max       int
	chars     int
	total     int
	truncated bool
	// pending is the number of newlines owed before the next word.
	pending int
	// space is owed before the next word (the text had whitespace).
	space bool
	// prefix is written at the start of the next block's first word.
	prefix string
}

func newTextOut(max int) *textOut { return &textOut{max: max} }

// block asks for n newlines (1: line break, 2: paragraph) before the
// next word. Breaks do not add up: a paragraph inside a paragraph is one.
func (w *textOut) block(n int) {
	if w.b.Len() == 0 {
		return
	}
	w.pending = max(w.pending, n)
	w.space = false
}

// lineBreak is <br>: a newline even right after another one.
func (w *textOut) lineBreak() {
	if w.b.Len() == 0 {
		return
	}
	if w.pending > 0 {
		w.pending++
	} else {
		w.pending = 1
	}
	w.space = false
}

// text writes a text node with whitespace collapsed.
func (w *textOut) text(s string) {
	if s == "" {
		return
	}
	if isSpace(s[0]) {
		w.space = true
	}
	for _, word := range strings.Fields(s) {
		w.word(word)
		w.space = true
	}
	if !isSpace(s[len(s)-1]) {
		w.space = false
	}
}

// glue writes s with no space before it (link markup, table separators).
func (w *textOut) glue(s string) {
	w.space = false
	w.word(s)
}

// verbatim writes preformatted text as it is.
func (w *textOut) verbatim(s string) {
	if s == "" {
		return
	}
	w.space = false
	w.word(s)
}

func (w *textOut) word(s string) {
	sep := ""
	switch {
	case w.b.Len() == 0:
	case w.pending > 0:
		sep = strings.Repeat("\n", min(w.pending, 2))
	case w.space:
		sep = " "
	}
	if w.pending > 0 || w.b.Len() == 0 {
		sep += w.prefix
		w.prefix = ""
	}
	w.pending, w.space = 0, false
	s = sep + s
	n := utf8.RuneCountInString(s)
	w.total += n
	if w.truncated {
		return
	}
	if w.chars+n > w.max {
		// Keep what fits, cut on a rune boundary.
		room := w.max - w.chars
		for i := range s {
			if room == 0 {
				s = s[:i]
				break
			}
			room--
		}
		w.b.WriteString(s)
		w.chars = w.max
		w.truncated = true
		return
	}
	w.b.WriteString(s)
	w.chars += n
}

// setPrefix puts s (a heading mark, a list bullet) before the next word.
func (w *textOut) setPrefix(s string) { w.prefix = s }

func (w *textOut) String() string { return w.b.String() }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
