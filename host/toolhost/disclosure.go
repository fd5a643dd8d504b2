package toolhost

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"demiurge.dev/catalog"
	"demiurge.dev/shared/toolsetv1"
)

// Progressive disclosure (issue 17 part 4, seed 004's search_capabilities):
// a core defers toolsets, MCP servers or tools (tools.deferred, an MCP
// manifest's deferred: true); their tools stay in the catalog but out of
// the provider definitions until the session activates them. Activation
// only adds, is recorded in the store and comes back on resume.

// Search bounds.
const (
	defaultCapabilityMatches = 10
	maxCapabilityMatches     = 50
	maxCapabilityQuery       = 500
	maxMatchDescription      = 500
)

// disclosure is a session's standing in progressive disclosure.
type disclosure struct {
	once   sync.Once
	active *catalog.Disclosure
	mu     sync.Mutex
	// pool are the deferred tools of the session's last catalog before a
	// delegated child's projection: what a search can find, including
	// what the projection cannot provide (unavailable_tools).
	pool []catalog.CapabilityCandidate
}

// deferredNames are what the session's catalog defers: the core's
// tools.deferred, and every MCP server among sources whose manifest says
// deferred: true.
func (h *Host) deferredNames(sources []catalog.Source) []string {
	names := slices.Clone(h.Core.Deferred)
	if h.Core.MCPRoot == "" {
		return names
	}
	servers, _ := h.mcpManifests.Load(h.Core.MCPRoot)
	for _, src := range sources {
		if src.Kind != catalog.SourceMCP {
			continue
		}
		for _, m := range servers {
			if m.ID == src.Name && m.Deferred && !slices.Contains(names, m.ID) {
				names = append(names, m.ID)
			}
		}
	}
	return names
}

// withoutSearch drops search_capabilities when nothing is deferred: a tool
// that can find nothing only costs the model context.
func withoutSearch(sources []catalog.Source) []catalog.Source {
	out := make([]catalog.Source, len(sources))
	for i, src := range sources {
		if i := slices.IndexFunc(src.Tools, func(t catalog.ToolSpec) bool { return t.Name == catalog.SearchCapabilitiesTool }); i >= 0 && src.Kind != catalog.SourceMCP {
			src.Tools = slices.Delete(slices.Clone(src.Tools), i, i+1)
		}
		out[i] = src
	}
	return out
}

// deferredPool lists the deferred tools of sources (before a child's
// projection).
func deferredPool(sources []catalog.Source, names []string) []catalog.CapabilityCandidate {
	var out []catalog.CapabilityCandidate
	for _, src := range sources {
		for _, t := range src.Tools {
			if t.Name == catalog.SearchCapabilitiesTool {
				continue
			}
			if slices.Contains(names, t.Name) || slices.Contains(names, t.Provenance.Toolset) || slices.Contains(names, src.Name) {
				out = append(out, catalog.CapabilityCandidate{Name: t.Name, Description: t.Description, Source: string(src.Kind) + ":" + src.Name})
			}
		}
	}
	return out
}

// activeTools is s's disclosure, loaded on first use: a resumed session
// gets back what it had activated (recorded in the store), a delegated
// child starts with what its parent had.
func (s *Session) activeTools() (*catalog.Disclosure, error) {
	var err error
	s.disclosure.once.Do(func() {
		var names []string
		if s.parent != nil {
			names = s.parent.disclosureNames()
		}
		store, serr := s.h.Store()
		if serr != nil {
			err = serr
		} else {
			acts, aerr := store.Activations(s.ID())
			err = aerr
			for _, a := range acts {
				names = append(names, a.Tool)
			}
		}
		s.disclosure.active = catalog.NewDisclosure(names...)
	})
	return s.disclosure.active, err
}

// Activated reports whether the session has activated the deferred tool
// name (search_capabilities), for a caller that lists the catalog per
// session (mcp serve).
func (s *Session) Activated(name string) bool {
	d, _ := s.activeTools()
	return d.IsActive(name)
}

func (s *Session) disclosureNames() []string {
	d, _ := s.activeTools()
	return d.Active()
}

// disclose defers the resolved catalog's deferred tools for s and
// remembers what a search of s can find.
func (h *Host) disclose(s *Session, cat *catalog.Catalog, names []string, pool []catalog.CapabilityCandidate) (*catalog.Catalog, []string) {
	if len(names) == 0 {
		return cat, nil
	}
	var warnings []string
	d, err := s.activeTools()
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("the tools this session activated could not be read back: %v; search_capabilities activates them again", err))
	}
	s.disclosure.mu.Lock()
	s.disclosure.pool = pool
	s.disclosure.mu.Unlock()
	return cat.Defer(names, d), warnings
}

// searchCapabilities answers search_capabilities for a turn of s over
// cat: the matches cat provides are activated (and recorded, before the
// answer says so); the others are unavailable_tools.
func (s *Session) searchCapabilities(cat *catalog.Catalog, turn string) func(ctx context.Context, query string, limit int) (*toolsetv1.SearchCapabilitiesResponse, error) {
	return func(ctx context.Context, query string, limit int) (*toolsetv1.SearchCapabilitiesResponse, error) {
		query = strings.TrimSpace(query)
		switch {
		case query == "":
			return nil, errors.New("query is empty; give words from the name or purpose of the tools you need")
		case len(query) > maxCapabilityQuery:
			return nil, fmt.Errorf("query is %d bytes; at most %d", len(query), maxCapabilityQuery)
		}
		if limit <= 0 {
			limit = defaultCapabilityMatches
		}
		limit = min(limit, maxCapabilityMatches)
		d := cat.Disclosure()
		s.disclosure.mu.Lock()
		pool := s.disclosure.pool
		s.disclosure.mu.Unlock()
		matches := catalog.SearchCapabilities(pool, query)
		resp := &toolsetv1.SearchCapabilitiesResponse{TotalMatches: int32(len(matches)), DeferredTotal: int32(len(pool))}
		var activate []string
		for _, m := range matches[:min(len(matches), limit)] {
			cm := &toolsetv1.CapabilityMatch{Name: m.Name, Description: clipDescription(m.Description), Source: m.Source}
			if _, ok := cat.Lookup(m.Name); !ok || !cat.Deferred(m.Name) || d == nil {
				resp.UnavailableTools = append(resp.UnavailableTools, cm)
				continue
			}
			cm.AlreadyActive = d.IsActive(m.Name)
			if !cm.AlreadyActive {
				activate = append(activate, m.Name)
			}
			resp.Activated = append(resp.Activated, cm)
		}
		if len(activate) > 0 {
			store, err := s.h.Store()
			if err != nil {
				return nil, err
			}
			// Durable first: an activation the answer reports survives a
			// crash and a resume.
			if err := store.RecordActivations(ctx, s.ID(), turn, activate); err != nil {
				return nil, fmt.Errorf("the activation could not be recorded: %w", err)
			}
			d.Activate(activate...)
		}
		return resp, nil
	}
}

func clipDescription(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxMatchDescription {
		return string(r[:maxMatchDescription]) + "…"
	}
	return s
}
