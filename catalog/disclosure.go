package catalog

import (
	"slices"
	"sync"
)

// SearchCapabilitiesTool is the control tool through which a session finds
// and activates deferred tools; it is never deferred itself.
const SearchCapabilitiesTool = "search_capabilities"

// Disclosure is one session's progressive disclosure: the deferred tools
// it has activated. It only grows (seed 004: activation only adds), and it
// outlives the per-turn catalogs that share it, so a tool activated in one
// step of a turn is in the provider definitions of the next step.
// It is safe for concurrent use.
type Disclosure struct {
	mu     sync.RWMutex
	active map[string]bool
	order  []string
}

// NewDisclosure starts a disclosure with the given tools active (those a
// resumed session had activated).
func NewDisclosure(active ...string) *Disclosure {
	d := &Disclosure{active: map[string]bool{}}
	d.Activate(active...)
	return d
}

// Activate adds names and returns those that were not active before, in
// the order given.
func (d *Disclosure) Activate(names ...string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var added []string
	for _, n := range names {
		if n == "" || d.active[n] {
			continue
		}
		d.active[n] = true
		d.order = append(d.order, n)
		added = append(added, n)
	}
	return added
}

// IsActive reports whether name was activated.
func (d *Disclosure) IsActive(name string) bool {
	if d == nil {
		return false
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.active[name]
}

// Active lists the activated tools in activation order.
func (d *Disclosure) Active() []string {
	if d == nil {
		return nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return slices.Clone(d.order)
}

// Defer returns a catalog of the same entries in which every entry named
// by names (a tool name, or its source: a toolset or an MCP server id) is
// deferred: left out of the provider definitions until disclosure
// activates it. search_capabilities is never deferred. A name that matches
// no entry becomes a warning diagnostic. With no names, c is returned.
func (c *Catalog) Defer(names []string, disclosure *Disclosure) *Catalog {
	if len(names) == 0 {
		return c
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	used := map[string]bool{}
	deferred := map[string]bool{}
	for _, e := range c.entries {
		if e.Spec.Name == SearchCapabilitiesTool {
			continue
		}
		byName, bySource := want[e.Spec.Name], want[e.Spec.Provenance.Toolset]
		if !byName && !bySource {
			continue
		}
		deferred[e.Spec.Name] = true
		if byName {
			used[e.Spec.Name] = true
		}
		if bySource {
			used[e.Spec.Provenance.Toolset] = true
		}
	}
	n := c.derived()
	n.deferred, n.disclosure = deferred, disclosure
	for _, name := range names {
		if !used[name] {
			n.diagnostics = append(n.diagnostics, Diagnostic{
				Tool: name, Field: "tools.deferred", Level: LevelWarning,
				Message: "tools.deferred names " + name + ", which is no tool, toolset or MCP server of this catalog",
			})
		}
	}
	return n
}

// Deferred reports whether the core defers name, activated or not.
func (c *Catalog) Deferred(name string) bool { return c.deferred[name] }

// Hidden reports whether name is deferred and not activated: it is not in
// the provider definitions and dispatch refuses to call it.
func (c *Catalog) Hidden(name string) bool {
	return c.deferred[name] && !c.disclosure.IsActive(name)
}

// DisclosureState is "deferred" for a hidden tool, "active" for an
// activated deferred one, "" for the others.
func (c *Catalog) DisclosureState(name string) string {
	switch {
	case !c.deferred[name]:
		return ""
	case c.disclosure.IsActive(name):
		return "active"
	}
	return "deferred"
}

// DeferredEntries are the entries the core defers, in catalog order.
func (c *Catalog) DeferredEntries() []*Entry {
	var out []*Entry
	for _, e := range c.entries {
		if c.deferred[e.Spec.Name] {
			out = append(out, e)
		}
	}
	return out
}

// Disclosure is the session disclosure the catalog reads; nil when
// nothing is deferred.
func (c *Catalog) Disclosure() *Disclosure { return c.disclosure }
