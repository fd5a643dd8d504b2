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

// text writes a text node with whitespace collapsed. It walks the words
// in place: a large page has millions of them.
func (w *textOut) text(s string) {
	if s == "" {
		return
	}
	if isSpace(s[0]) {
		w.space = true
	}
	i := 0
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if j > i {
			w.word(s[i:j])
			w.space = true
		}
		i = j
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
	newlines, space := 0, false
	switch {
	case w.b.Len() == 0:
	case w.pending > 0:
		newlines = min(w.pending, 2)
	case w.space:
		space = true
	}
	prefix := ""
	if w.pending > 0 || w.b.Len() == 0 {
		prefix, w.prefix = w.prefix, ""
	}
	w.pending, w.space = 0, false
	n := newlines + utf8.RuneCountInString(prefix) + utf8.RuneCountInString(s)
	if space {
		n++
	}
	w.total += n
	if w.truncated {
		return
	}
	if w.chars+n <= w.max {
		w.b.WriteString(strings.Repeat("\n", newlines))
		if space {
			w.b.WriteByte(' ')
		}
		w.b.WriteString(prefix)
		w.b.WriteString(s)
		w.chars += n
		return
	}
	// The cap falls inside this word: keep what fits, cut on a rune
	// boundary. This happens once per text.
	full := strings.Repeat("\n", newlines) + prefix + s
	if space {
		full = " " + full
	}
	room := w.max - w.chars
	for i := range full {
		if room == 0 {
			full = full[:i]
			break
		}
		room--
	}
	w.b.WriteString(full)
	w.chars = w.max
	w.truncated = true
}

// setPrefix puts s (a heading mark, a list bullet) before the next word.
func (w *textOut) setPrefix(s string) { w.prefix = s }

func (w *textOut) String() string { return w.b.String() }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
