package search

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search"
)

// snippet is a window of body of about n characters around its first
// matches, with each matched term marked as [[term]], on one line.
func snippet(body string, locs search.TermLocationMap, n int) string {
	var spans [][2]int
	for _, ls := range locs {
		for _, l := range ls {
			if l.End <= uint64(len(body)) && l.Start < l.End {
				spans = append(spans, [2]int{int(l.Start), int(l.End)})
			}
		}
	}
	if len(spans) == 0 {
		return short(oneLine(body), n)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	// Start a little before the first match, on a rune boundary.
	from := spans[0][0]
	for back := 0; from > 0 && back < n/4; back++ {
		from--
		for from > 0 && !utf8.RuneStart(body[from]) {
			from--
		}
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	at, chars := from, 0
	for _, sp := range spans {
		if sp[0] < at {
			continue
		}
		chars += writeChars(&b, body[at:sp[0]], n-chars)
		if chars >= n {
			break
		}
		b.WriteString("[[")
		chars += writeChars(&b, body[sp[0]:sp[1]], n-chars)
		b.WriteString("]]")
		at = sp[1]
		if chars >= n {
			break
		}
	}
	if chars < n {
		chars += writeChars(&b, body[at:], n-chars)
	}
	out := oneLine(b.String())
	if chars >= n && at < len(body) {
		out += "…"
	}
	return out
}

// writeChars writes at most max characters of s and says how many.
func writeChars(b *strings.Builder, s string, max int) int {
	n := 0
	for _, r := range s {
		if n >= max {
			return n
		}
		b.WriteRune(r)
		n++
	}
	return n
}
