package policy

import (
	"slices"
	"testing"
)

func TestIntersectNeverGrantsWhatEitherLacks(t *testing.T) {
	set := func(g ...string) CapabilitySet {
		s, err := NewCapabilitySet(g)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		a, b, want []string
	}{
		{[]string{"mcp.call:docs"}, []string{"mcp.call:*"}, []string{"mcp.call:docs"}},
		{[]string{"mcp.call:*"}, []string{"mcp.call:docs"}, []string{"mcp.call:docs"}},
		{[]string{"mcp.call:*"}, []string{"mcp.call:*"}, []string{"mcp.call:*"}},
		{[]string{"mcp.call:docs"}, []string{"mcp.call:wiki"}, nil},
		{nil, []string{"mcp.call:*"}, nil},
		{[]string{"mcp.call:docs", "mcp.call:wiki"}, []string{"mcp.call:wiki", "mcp.connect:wiki"}, []string{"mcp.call:wiki"}},
	} {
		got := set(c.a...).Intersect(set(c.b...)).List()
		if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%v ∩ %v = %v, want %v", c.a, c.b, got, c.want)
		}
		for _, g := range got { // every grant is held by both
			if !(set(c.a...).Has(g) || slices.Contains(c.a, g)) || !(set(c.b...).Has(g) || slices.Contains(c.b, g)) {
				t.Errorf("%v ∩ %v holds %s, which one of them lacks", c.a, c.b, g)
			}
		}
	}
}
