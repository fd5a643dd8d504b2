package policy

import (
	"slices"
	"strings"
)

// Intersect is what both sets grant: a grant of one that the other
// covers (Has, or the same wildcard), and, for a wildcard of one, the
// other's grants under that wildcard. It never holds a grant either set
// lacks: a child running another core gets at most what its parent holds
// and that core grants.
func (s CapabilitySet) Intersect(o CapabilitySet) CapabilitySet {
	var out []string
	keep := func(a, b CapabilitySet) {
		for _, g := range a.grants {
			switch {
			case b.Has(g) || slices.Contains(b.grants, g):
				out = append(out, g)
			case strings.HasSuffix(g, ":*"):
				prefix := strings.TrimSuffix(g, "*")
				for _, n := range b.grants {
					if strings.HasPrefix(n, prefix) {
						out = append(out, n)
					}
				}
			}
		}
	}
	keep(s, o)
	keep(o, s)
	slices.Sort(out)
	return CapabilitySet{grants: slices.Compact(out)}
}
