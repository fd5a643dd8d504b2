package core

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// nearest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a plausible typo.
func nearest(s string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// A third of the word, at least two edits: catches "toolset",
	// "aproval_policy" and "tool" without suggesting "name" for "xyz".
	limit := max(2, len(best)/3)
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// unknownMsg says that name is not one of valid, suggesting the nearest
// and listing them all after label ("valid keys", "known toolsets").
func unknownMsg(what, name, label string, valid []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, clip(name))
	if n := nearest(name, valid); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	return msg + "; " + label + ": " + strings.Join(valid, ", ")
}

// editDistance is the Levenshtein distance between a and b, in bytes; the
// keys compared are short ASCII identifiers.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		// Long junk keys are never typos of ours; bound the work.
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// clipLen bounds the user text quoted in one message: a megabyte-long key
// should not become a megabyte-long error.
const clipLen = 80

// clip shortens s to clipLen bytes, on a rune boundary, marking the cut.
func clip(s string) string {
	if len(s) <= clipLen {
		return s
	}
	cut := clipLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
