package catalog

import (
	"sort"
	"strings"
)

// suggest returns the candidate closest to name, when one is close enough
// to be what was meant: equal ignoring case, or within a small edit
// distance. It returns "" when nothing is plausible.
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
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
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
