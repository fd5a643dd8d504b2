package pathrules

import "path"

// MatchSegments matches path segments against glob segments: path.Match
// syntax within a segment, "**" standing for zero or more whole segments.
// It runs in len(pat)*len(name) steps (no backtracking), because the
// paths matched may come from a model or an agent's files.
func MatchSegments(pat, name []string) bool {
	// cur[j] reports whether the glob so far matches name[:j].
	cur := make([]bool, len(name)+1)
	next := make([]bool, len(name)+1)
	cur[0] = true
	for _, p := range pat {
		if p == "**" {
			seen := false
			for j := range cur {
				seen = seen || cur[j]
				next[j] = seen
			}
		} else {
			next[0] = false
			for j := 1; j <= len(name); j++ {
				next[j] = false
				if cur[j-1] {
					next[j], _ = path.Match(p, name[j-1])
				}
			}
		}
		cur, next = next, cur
	}
	return cur[len(name)]
}
