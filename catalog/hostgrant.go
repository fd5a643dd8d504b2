package catalog

import "fmt"

// HostGrant is a capability the operator's path-scoped grants file gives
// to an authored tool (or a pipeline slot) by its path in the core, and
// where it is written: `tools show` says where a grant came from.
type HostGrant struct {
	Capability string `json:"capability"`
	// Pattern is the path pattern that matched the tool's path.
	Pattern string `json:"pattern"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// Origin is "FILE:LINE", where the grant is written.
func (g HostGrant) Origin() string { return fmt.Sprintf("%s:%d", g.File, g.Line) }

// HostGranted reports whether the operator's grants give this entry
// capability c (beside the session's grants).
func (e *Entry) HostGranted(c string) bool {
	return e != nil && HostGranted(e.HostGrants, c)
}

// HostGranted reports whether grants hold capability c, exactly.
func HostGranted(grants []HostGrant, c string) bool {
	if c == "" {
		return false
	}
	for _, g := range grants {
		if g.Capability == c {
			return true
		}
	}
	return false
}

// WithHostGrants is the catalog with each entry's HostGrants set to what
// grants returns for it (an entry that gets none is shared unchanged). c
// itself is unchanged.
func (c *Catalog) WithHostGrants(grants func(e *Entry) []HostGrant) *Catalog {
	out := c.derived()
	out.entries, out.byName = make([]*Entry, 0, len(c.entries)), make(map[string]*Entry, len(c.entries))
	for _, e := range c.entries {
		if g := grants(e); len(g) > 0 {
			cp := *e
			cp.HostGrants = g
			e = &cp
		}
		out.entries = append(out.entries, e)
		out.byName[e.Spec.Name] = e
	}
	return out
}
