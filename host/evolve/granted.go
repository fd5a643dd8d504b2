package evolve

import (
	"fmt"
	"slices"
	"strings"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/policy"
)

// grantedChanges is how the changed paths widen authority through the
// operator's path grants: a file changed, added or removed under an
// authored tool or slot that a grant gives capabilities to (a secret
// binding above all) would have the operator's grant go to code the
// operator has not seen, so such a run is the operator's to promote,
// whatever its own declarations say. The match is the grants' own
// (policy.CoreGrants.For), on every leading part of the path in its core.
func grantedChanges(changed []string, grants *policy.PathGrants) []string {
	var widens []string
	for _, p := range changed {
		rest, ok := strings.CutPrefix(p, corerepo.AgentsDir+"/")
		if !ok {
			continue
		}
		id, rel, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		cg := grants.ForCore(id, "")
		if len(cg) == 0 {
			continue
		}
		parts := strings.Split(rel, "/")
		for i := 1; i <= len(parts); i++ {
			under := strings.Join(parts[:i], "/")
			if g := cg.For(under); len(g) > 0 {
				var caps []string
				for _, h := range g {
					if !slices.Contains(caps, h.Capability) {
						caps = append(caps, h.Capability)
					}
				}
				widens = append(widens, fmt.Sprintf("core %s: %s changes under %s, which the operator's grants give %s", id, rel, under, strings.Join(caps, ", ")))
				break
			}
		}
	}
	return widens
}
