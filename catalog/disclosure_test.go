package catalog

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func definitionNames(t *testing.T, c *Catalog) []string {
	t.Helper()
	defs, err := c.Definitions(ProviderAnthropic)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range defs {
		out = append(out, d["name"].(string))
	}
	return out
}

func TestDeferHidesUntilActivated(t *testing.T) {
	sources := append(baseSources(), Source{Kind: SourceBuiltin, Name: "demiurge_control",
		Tools: []ToolSpec{func() ToolSpec { s := readFileSpec(); s.Name = SearchCapabilitiesTool; return s }()}, Binding: &binding{"control"}})
	tests := []struct {
		name     string
		deferred []string
		visible  []string
		hidden   []string
		notes    []string
	}{
		{"nothing deferred", nil, []string{"read_file", "write_file", "project_note", "docs__search", SearchCapabilitiesTool}, nil, nil},
		{"an MCP server by id", []string{"docs"}, []string{"read_file", "write_file", "project_note", SearchCapabilitiesTool}, []string{"docs__search"}, nil},
		{"a toolset", []string{"coding"}, []string{"project_note", "docs__search", SearchCapabilitiesTool}, []string{"read_file", "write_file"}, nil},
		{"a tool by name", []string{"write_file"}, []string{"read_file", "project_note", "docs__search", SearchCapabilitiesTool}, []string{"write_file"}, nil},
		{"search_capabilities stays visible", []string{"demiurge_control", SearchCapabilitiesTool}, []string{"read_file", "write_file", "project_note", "docs__search", SearchCapabilitiesTool}, nil,
			[]string{"tools.deferred names demiurge_control", "tools.deferred names search_capabilities"}},
		{"a name that matches nothing", []string{"nosuch"}, []string{"read_file", "write_file", "project_note", "docs__search", SearchCapabilitiesTool}, nil, []string{"tools.deferred names nosuch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustResolve(t, sources, nil).Defer(tc.deferred, NewDisclosure())
			if got := definitionNames(t, c); !slices.Equal(got, tc.visible) {
				t.Errorf("definitions %q, want %q", got, tc.visible)
			}
			for _, h := range tc.hidden {
				if !c.Hidden(h) || c.DisclosureState(h) != "deferred" {
					t.Errorf("%s: Hidden=%v state=%q, want hidden and deferred", h, c.Hidden(h), c.DisclosureState(h))
				}
				if _, ok := c.Lookup(h); !ok {
					t.Errorf("%s: a deferred tool is still in the catalog for activation", h)
				}
			}
			var notes []string
			for _, d := range c.Diagnostics() {
				notes = append(notes, d.Message)
			}
			for _, want := range tc.notes {
				if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
					t.Errorf("diagnostics %q lack %q", notes, want)
				}
			}
			if len(tc.notes) == 0 && len(notes) > 0 {
				t.Errorf("unexpected diagnostics %q", notes)
			}
		})
	}
}

func TestActivationShowsInTheSameCatalog(t *testing.T) {
	d := NewDisclosure()
	c := mustResolve(t, baseSources(), nil).Defer([]string{"docs", "write_file"}, d)
	if got := c.DeferredEntries(); len(got) != 2 {
		t.Fatalf("DeferredEntries = %d, want 2", len(got))
	}
	if added := d.Activate("docs__search", "docs__search"); !slices.Equal(added, []string{"docs__search"}) {
		t.Errorf("Activate added %q", added)
	}
	if c.Hidden("docs__search") || c.DisclosureState("docs__search") != "active" {
		t.Error("an activated tool is still hidden in the catalog that shares the disclosure")
	}
	if !slices.Contains(definitionNames(t, c), "docs__search") {
		t.Error("the activated tool is not in the provider definitions")
	}
	if !c.Hidden("write_file") {
		t.Error("activating one tool showed another")
	}
	// A new catalog of the next turn over the same disclosure keeps it.
	next := mustResolve(t, baseSources(), nil).Defer([]string{"docs", "write_file"}, d)
	if next.Hidden("docs__search") {
		t.Error("activation did not carry over to the next turn's catalog")
	}
	if again := d.Activate("docs__search"); len(again) != 0 {
		t.Errorf("re-activation reported %q as new", again)
	}
}

func TestDisclosureConcurrent(t *testing.T) {
	d := NewDisclosure("a")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.Activate(string(rune('b' + i)))
			_ = d.IsActive("a")
			_ = d.Active()
		}()
	}
	wg.Wait()
	if got := len(d.Active()); got != 9 {
		t.Errorf("%d active, want 9", got)
	}
}
