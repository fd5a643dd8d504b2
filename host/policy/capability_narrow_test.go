package policy

import (
	"strings"
	"testing"
)

func TestNarrowNeverGrants(t *testing.T) {
	parent, err := NewCapabilitySet([]string{"fs.read", "mcp.call:*", "mcp.connect:docs", "secret.bind:GH_TOKEN"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req  []string
		fail string
	}{
		{req: nil},
		{req: []string{"fs.read"}},
		{req: []string{"mcp.call:docs", "mcp.connect:docs"}},
		{req: []string{"mcp.call:*"}},
		{req: []string{"secret.bind:GH_TOKEN"}},
		{req: []string{"fs.write"}, fail: "fs.write is not held"},
		{req: []string{"mcp.connect:*"}, fail: "mcp.connect:* is not held"},
		{req: []string{"mcp.connect:other"}, fail: "mcp.connect:other is not held"},
		{req: []string{"secret.bind:AWS_KEY"}, fail: "secret.bind:AWS_KEY is not held"},
		{req: []string{"bogus"}, fail: "bogus"},
	} {
		got, err := parent.Narrow(tc.req)
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("Narrow(%v) = %v, %v; want error %q", tc.req, got.List(), err, tc.fail)
			}
			continue
		}
		if err != nil {
			t.Errorf("Narrow(%v): %v", tc.req, err)
			continue
		}
		if len(got.List()) != len(tc.req) {
			t.Errorf("Narrow(%v) = %v", tc.req, got.List())
		}
		for _, g := range got.List() {
			if !parent.Has(g) && g != "mcp.call:*" {
				t.Errorf("Narrow(%v) holds %s the parent lacks", tc.req, g)
			}
		}
	}
}
