package fsops

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// lineMatcher finds the lines of a buffer that a regular expression
// matches. A literal every match must contain is searched first with
// bytes.Index (vectorised), and the expression runs only on the lines
// that hold it; a pattern that is nothing but that literal needs no
// expression at all.
type lineMatcher struct {
	re       *regexp.Regexp // run on one line (no newline in it)
	reScan   *regexp.Regexp // line-anchored form, to find candidates when there is no literal
	lit      []byte         // required literal; lower-case ASCII when fold
	litFind  *literalFinder
	fold     bool
	complete bool // the pattern is exactly lit: a literal hit is a match
}

// maxPatternLen bounds the regular expression a model may send.
const maxPatternLen = 4096

func compileLineMatcher(pattern string, caseInsensitive bool) (*lineMatcher, error) {
	if pattern == "" {
		return nil, refuse("", ErrInvalidArgument, "pattern is empty; give a regular expression, or use mode files with a glob to list files")
	}
	if len(pattern) > maxPatternLen {
		return nil, refuse("", ErrInvalidArgument, "pattern is longer than %d bytes", maxPatternLen)
	}
	flags := syntax.Perl
	prefix := ""
	if caseInsensitive {
		flags |= syntax.FoldCase
		prefix = "(?i)"
	}
	parsed, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, refuse("", ErrInvalidArgument, "pattern is not a valid RE2 regular expression: %v", err)
	}
	re, err := regexp.Compile(prefix + pattern)
	if err != nil {
		return nil, refuse("", ErrInvalidArgument, "pattern is not a valid RE2 regular expression: %v", err)
	}
	m := &lineMatcher{re: re}
	parsed = parsed.Simplify()
	lit, fold := requiredLiteral(parsed)
	switch {
	case len(lit) == 0 || strings.ContainsRune(string(lit), '\n'):
		lit = nil
	case fold && !asciiFoldSafe(lit):
		lit = nil
	case fold:
		lit = []rune(strings.ToLower(string(lit)))
	}
	if lit != nil {
		m.lit, m.fold = []byte(string(lit)), fold
		m.litFind = newLiteralFinder(m.lit)
		m.complete = !fold && parsed.Op == syntax.OpLiteral
	} else {
		// The scan runs over the whole buffer, where "start/end of text"
		// must mean start/end of line as it does when a line is matched
		// alone.
		scan, err := regexp.Compile(lineAnchored(parsed).String())
		if err != nil {
			return nil, refuse("", ErrInvalidArgument, "pattern is not a valid RE2 regular expression: %v", err)
		}
		m.reScan = scan
	}
	return m, nil
}

// lineAnchored rewrites text anchors (^ $ \A \z without (?m)) into line
// anchors, in place. An end anchor may follow a carriage return, as the
// end of a CRLF line does: the scan only finds candidates, which eachLine
// then matches with and without the line's \r.
func lineAnchored(re *syntax.Regexp) *syntax.Regexp {
	for _, sub := range re.Sub {
		lineAnchored(sub)
	}
	switch re.Op {
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText, syntax.OpEndLine:
		cr := &syntax.Regexp{Op: syntax.OpQuest, Sub: []*syntax.Regexp{{Op: syntax.OpLiteral, Rune: []rune{'\r'}}}}
		*re = syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{cr, {Op: syntax.OpEndLine}}}
	}
	return re
}

// requiredLiteral returns a literal string that every match contains:
// the longest literal among the parts of a concatenation.
func requiredLiteral(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []rune
		var bestFold bool
		for _, sub := range re.Sub {
			if l, f := requiredLiteral(sub); len(l) > len(best) {
				best, bestFold = l, f
			}
		}
		return best, bestFold
	}
	return nil, false
}

// asciiFoldSafe: the literal is ASCII and free of k and s, whose Unicode
// case folds (K, ſ) are not ASCII, so an ASCII case-insensitive search
// finds every line the expression can match.
func asciiFoldSafe(lit []rune) bool {
	for _, r := range lit {
		if r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S' {
			return false
		}
	}
	return true
}

// find returns the offset in b of the next position a match could start
// on, or -1.
func (m *lineMatcher) find(b []byte) int {
	switch {
	case m.lit != nil && !m.fold:
		return m.litFind.index(b)
	case m.lit != nil:
		return indexFoldASCII(b, m.lit)
	default:
		loc := m.reScan.FindIndex(b)
		if loc == nil {
			return -1
		}
		return loc[0]
	}
}

// eachLine calls fn with the start and end (exclusive, without the
// newline) of every matching line, in order, until fn returns false.
func (m *lineMatcher) eachLine(b []byte, fn func(start, end int) bool) {
	for pos := 0; pos <= len(b); {
		i := m.find(b[pos:])
		if i < 0 {
			return
		}
		i += pos
		if i == len(b) && (len(b) == 0 || b[len(b)-1] == '\n') {
			return // the empty "line" after a final newline is not a line
		}
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		end := len(b)
		if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
			end = i + j
		}
		// A CRLF line is matched without its \r too, so that "x$" finds
		// "x\r\n" (as it finds "x\n"); with it too, for a pattern that
		// names the \r.
		line := b[start:end]
		if m.complete || m.re.Match(line) || (len(line) > 0 && line[len(line)-1] == '\r' && m.re.Match(line[:len(line)-1])) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// indexFoldASCII finds lit (lower-case ASCII) in b ignoring ASCII case.
func indexFoldASCII(b, lit []byte) int {
	first := lit[0]
	other := first
	if 'a' <= first && first <= 'z' {
		other = first - 'a' + 'A'
	}
	nextLower, nextUpper := -2, -2 // -2: not searched yet
	for pos := 0; pos+len(lit) <= len(b); {
		if nextLower != -1 && nextLower < pos {
			if nextLower = bytes.IndexByte(b[pos:], first); nextLower >= 0 {
				nextLower += pos
			}
		}
		if other != first && nextUpper != -1 && nextUpper < pos {
			if nextUpper = bytes.IndexByte(b[pos:], other); nextUpper >= 0 {
				nextUpper += pos
			}
		}
		c := nextLower
		if other != first && (c < 0 || (nextUpper >= 0 && nextUpper < c)) {
			c = nextUpper
		}
		if c < 0 || c+len(lit) > len(b) {
			return -1
		}
		if bytes.EqualFold(b[c:c+len(lit)], lit) {
			return c
		}
		pos = c + 1
	}
	return -1
}
