package catalog

import (
	"slices"
	"strings"
)

// Unavailable is a tool left out of a catalog because the session is not
// granted its singular capability: the model never sees it, and the
// operator's listing says what is missing.
type Unavailable struct {
	Tool       string     `json:"tool"`
	Provenance Provenance `json:"provenance"`
	// Missing is the capability the tool needs and the session lacks.
	Missing string `json:"missing_capability"`
}

// Callable is the catalog a session under the given grants can call:
// every entry whose singular capability (Effective.Capability) granted
// reports true for or the operator's path grants give it (HostGrants), or
// that needs none. The others move to Unavailable,
// so provider definitions and tools_list never offer a tool whose every
// call the capability gate would refuse. c itself is unchanged.
func (c *Catalog) Callable(granted func(capability string) bool) *Catalog {
	out := c.derived()
	out.entries, out.byName = nil, make(map[string]*Entry, len(c.entries))
	for _, e := range c.entries {
		if need := e.Effective.Capability; need != "" && !granted(need) && !e.HostGranted(need) {
			out.unavailable = append(out.unavailable, Unavailable{Tool: e.Spec.Name, Provenance: e.Spec.Provenance, Missing: need})
			continue
		}
		out.entries = append(out.entries, e)
		out.byName[e.Spec.Name] = e
	}
	return out
}

// Unavailable lists the tools Callable left out, in catalog order.
func (c *Catalog) Unavailable() []Unavailable {
	return append([]Unavailable(nil), c.unavailable...)
}

// Grants reports whether a list of grants (as written in agent.yaml's
// capabilities) grants capability: exactly, or through PREFIX:* for a
// scoped one. It is policy.CapabilitySet.Has for grants already validated,
// for a caller that cannot link the policy package (the launcher).
func Grants(grants []string) func(capability string) bool {
	set := make(map[string]bool, len(grants))
	for _, g := range grants {
		set[g] = true
	}
	return func(capability string) bool {
		if capability == "" || strings.Contains(capability, "*") {
			return false
		}
		if set[capability] {
			return true
		}
		prefix, _, scoped := strings.Cut(capability, ":")
		return scoped && set[prefix+":*"]
	}
}

// derived is a copy of c that shares its entries, for the functions that
// narrow or mark a catalog (Callable, Defer): every property of the
// catalog carries over, whichever ran first.
func (c *Catalog) derived() *Catalog {
	return &Catalog{
		entries: c.entries, byName: c.byName, disabled: c.disabled,
		diagnostics: slices.Clone(c.diagnostics),
		deferred:    c.deferred, disclosure: c.disclosure,
		unavailable: slices.Clone(c.unavailable),
	}
}
