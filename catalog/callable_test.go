package catalog

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func names(c *Catalog) []string {
	var out []string
	for _, e := range c.Entries() {
		out = append(out, e.Name())
	}
	return out
}

// TestCallable: a tool whose singular capability is not granted leaves
// the model's catalog (entries, provider definitions) and is listed for
// the operator with the missing capability; a tool that needs none stays.
func TestCallable(t *testing.T) {
	full := mustResolve(t, baseSources(), nil)
	tests := []struct {
		grants      []string
		callable    []string
		unavailable map[string]string
	}{
		{[]string{"fs.read", "fs.write", "mcp.call:docs"}, []string{"read_file", "write_file", "project_note", "docs__search"}, nil},
		{[]string{"fs.read"}, []string{"read_file", "project_note"}, map[string]string{"write_file": "fs.write", "docs__search": "mcp.call:docs"}},
		{[]string{"fs.read", "mcp.call:*"}, []string{"read_file", "project_note", "docs__search"}, map[string]string{"write_file": "fs.write"}},
		{[]string{"mcp.call:other"}, []string{"project_note"}, map[string]string{"read_file": "fs.read", "write_file": "fs.write", "docs__search": "mcp.call:docs"}},
		{nil, []string{"project_note"}, map[string]string{"read_file": "fs.read", "write_file": "fs.write", "docs__search": "mcp.call:docs"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.grants, ","), func(t *testing.T) {
			c := full.Callable(Grants(tt.grants))
			if got := names(c); !slices.Equal(got, tt.callable) {
				t.Errorf("callable %q, want %q", got, tt.callable)
			}
			got := map[string]string{}
			for _, u := range c.Unavailable() {
				got[u.Tool] = u.Missing
				if _, ok := c.Lookup(u.Tool); ok {
					t.Errorf("%s is unavailable but Lookup finds it", u.Tool)
				}
			}
			if len(got) != len(tt.unavailable) {
				t.Errorf("unavailable %v, want %v", got, tt.unavailable)
			}
			for k, v := range tt.unavailable {
				if got[k] != v {
					t.Errorf("unavailable %s: missing %q, want %q", k, got[k], v)
				}
			}
			for _, p := range []Provider{ProviderOpenAI, ProviderAnthropic, ProviderGemini} {
				var b strings.Builder
				if err := c.WriteList(&b, ListOptions{Provider: p}); err != nil {
					t.Fatal(err)
				}
				for name := range tt.unavailable {
					if strings.Contains(b.String(), `"`+name+`"`) {
						t.Errorf("%s definitions offer unavailable %s", p, name)
					}
				}
			}
			var b strings.Builder
			if err := c.WriteList(&b, ListOptions{Mode: DisplaySummary}); err != nil {
				t.Fatal(err)
			}
			for name, missing := range tt.unavailable {
				if !strings.Contains(b.String(), "unavailable: "+name+" ") || !strings.Contains(b.String(), "needs capability "+missing) {
					t.Errorf("the operator's listing does not show %s as unavailable for %s:\n%s", name, missing, b.String())
				}
			}
			b.Reset()
			if err := c.WriteList(&b, ListOptions{JSON: true}); err != nil {
				t.Fatal(err)
			}
			var listed []map[string]any
			if err := json.Unmarshal([]byte(b.String()), &listed); err != nil {
				t.Fatal(err)
			}
			for _, l := range listed {
				if missing, ok := tt.unavailable[l["name"].(string)]; ok && (l["unavailable"] != true || l["missing_capability"] != missing) {
					t.Errorf("JSON listing of %s: %v", l["name"], l)
				}
			}
		})
	}
	if full.Fingerprint() == full.Callable(Grants([]string{"fs.read"})).Fingerprint() {
		t.Error("a narrowed catalog has the full catalog's fingerprint")
	}
	if len(full.Unavailable()) != 0 || len(full.Entries()) != 4 {
		t.Error("Callable changed the catalog it was called on")
	}
}

func TestGrants(t *testing.T) {
	g := Grants([]string{"fs.read", "mcp.call:*", "secret.bind:KEY"})
	for c, want := range map[string]bool{
		"fs.read": true, "fs.write": false, "mcp.call:docs": true, "mcp.call:*": false,
		"secret.bind:KEY": true, "secret.bind:OTHER": false, "": false, "fs": false,
	} {
		if got := g(c); got != want {
			t.Errorf("Grants(%q) = %v, want %v", c, got, want)
		}
	}
}

// TestCallableAndDeferCompose: a catalog narrowed to what the session may
// call and marked with its deferred tools keeps both, in either order (the
// host applies them one after the other).
func TestCallableAndDeferCompose(t *testing.T) {
	full := mustResolve(t, baseSources(), nil)
	grants := Grants([]string{"fs.read", "mcp.call:docs"})
	for name, c := range map[string]*Catalog{
		"callable then defer": full.Callable(grants).Defer([]string{"docs"}, NewDisclosure()),
		"defer then callable": full.Defer([]string{"docs"}, NewDisclosure()).Callable(grants),
	} {
		t.Run(name, func(t *testing.T) {
			if !c.Hidden("docs__search") {
				t.Error("docs__search is not hidden")
			}
			if _, ok := c.Lookup("write_file"); ok {
				t.Error("write_file (needs fs.write) is callable")
			}
			if len(c.Unavailable()) != 1 || c.Unavailable()[0].Tool != "write_file" {
				t.Errorf("unavailable %+v, want write_file", c.Unavailable())
			}
		})
	}
}
