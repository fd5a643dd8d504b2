package catalog

import (
	"sort"
	"strings"
)

// Suggest returns the candidate closest to name, when one is close enough
// to be what was meant: equal ignoring case, or within a small edit
// distance. It returns "" when nothing is plausible. The host uses it for
// every "did you mean": tool names, arguments, agent.yaml keys.
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }

func suggest(name string, candidates []string) string {
	best, bestDist := "", -1
	limit := max(1, min(3, len([]rune(name))/3))
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted) // ties resolve the same way every time
	for _, c := range sorted {
		if strings.EqualFold(c, name) {
			return c
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between two strings, by rune.
// Long strings are never typos of a name; their distance is not computed.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 128 || len(rb) > 128 {
		return max(len(ra), len(rb))
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
