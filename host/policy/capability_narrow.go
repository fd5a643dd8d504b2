package policy

import (
	"fmt"
	"slices"
)

// Narrow is the set a delegated child may hold: exactly the requested
// grants, each of which this set must already cover. A plain or scoped
// grant is covered when Has says so; a wildcard only by the same wildcard,
// so "mcp.call:*" never widens a parent that holds "mcp.call:docs". A
// request for anything this set lacks fails, naming it: delegation never
// grants.
func (s CapabilitySet) Narrow(requested []string) (CapabilitySet, error) {
	want, err := NewCapabilitySet(requested)
	if err != nil {
		return CapabilitySet{}, err
	}
	for _, g := range want.grants {
		if !s.Has(g) && !slices.Contains(s.grants, g) {
			return CapabilitySet{}, fmt.Errorf("capability %s is not held by the delegating session, so it cannot be handed on", g)
		}
	}
	return want, nil
}
