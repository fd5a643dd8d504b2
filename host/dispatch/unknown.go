package dispatch

import (
	"fmt"
	"strings"

	"demiurge.dev/catalog"
)

// unknownToolMessage names the closest tools, so a model can correct a
// misspelt name without listing every tool.
func unknownToolMessage(name string, c *catalog.Catalog) string {
	best, bestDist := "", len(name)/2+2
	var names []string
	for _, e := range c.Entries() {
		names = append(names, e.Spec.Name)
		if d := editDistance(strings.ToLower(name), strings.ToLower(e.Spec.Name)); d < bestDist {
			best, bestDist = e.Spec.Name, d
		}
	}
	if best != "" {
		return fmt.Sprintf("unknown tool %q; did you mean %q?", name, best)
	}
	if len(names) > 12 {
		names = append(names[:12], "…")
	}
	return fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(names, ", "))
}

func editDistance(a, b string) int {
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
