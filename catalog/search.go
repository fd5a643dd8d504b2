package catalog

import (
	"slices"
	"strings"
	"unicode"
)

// CapabilityCandidate is one deferred tool search_capabilities can find.
type CapabilityCandidate struct {
	Name, Description, Source string
}

// SearchCapabilities ranks candidates against query: each query word
// (letters and digits, at least two, case-folded) that occurs in a
// tool's name counts three, one that occurs only in its description one.
// A tool matches when at least half of the query's words occur in it;
// a query that is exactly a tool's name finds that tool alone. Ties keep the candidates'
// order. The answer is every match, best first.
func SearchCapabilities(candidates []CapabilityCandidate, query string) []CapabilityCandidate {
	terms := searchTerms(query)
	exact := strings.TrimSpace(query)
	if len(terms) == 0 && exact == "" {
		return nil
	}
	need := (len(terms) + 1) / 2
	type scored struct {
		c     CapabilityCandidate
		score int
		index int
	}
	var hits []scored
	for _, c := range candidates {
		if c.Name == exact {
			return []CapabilityCandidate{c} // asked for by name
		}
	}
	for i, c := range candidates {
		name := strings.Join(searchTerms(c.Name), " ")
		desc := strings.ToLower(c.Description)
		found, score := 0, 0
		for _, t := range terms {
			switch {
			case containsWord(name, t):
				found, score = found+1, score+3
			case strings.Contains(desc, t):
				found, score = found+1, score+1
			}
		}
		if found > 0 && found >= need {
			hits = append(hits, scored{c, score, i})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })
	out := make([]CapabilityCandidate, len(hits))
	for i, h := range hits {
		out[i] = h.c
	}
	return out
}

// containsWord reports whether term is a prefix of a word of the
// space-separated words (so "search" finds docs__search_pages, and
// "page" finds "pages").
func containsWord(words, term string) bool {
	for _, w := range strings.Fields(words) {
		if strings.HasPrefix(w, term) {
			return true
		}
	}
	return false
}

// searchTerms splits s into lower-case words of letters and digits, at
// least two long, each once.
func searchTerms(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) >= 2 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
