package mcp

import (
	"strings"
	"testing"
)

// The operator's call of one tool connects only the servers MayOffer
// names: every name ToolName gives a server's tool, cut or not, is one of
// its own, and no other server's.
func TestMayOffer(t *testing.T) {
	long := strings.Repeat("s", 60)
	for _, c := range []struct{ server, tool string }{
		{"docs", "echo"}, {"docs", "files/read.v2"}, {"a", "b__c"},
		{long, "x"}, {"docs", strings.Repeat("t", 80)},
	} {
		name, err := ToolName(c.server, c.tool)
		if err != nil {
			t.Fatal(err)
		}
		if !MayOffer(c.server, name) {
			t.Errorf("MayOffer(%q, %q) = false for its own tool", c.server, name)
		}
	}
	for _, c := range []struct{ server, name string }{
		{"docs", "read_file"}, {"docs", "docs_echo"}, {"doc", "docs__echo"}, {"docs", "other__docs__x"},
	} {
		if MayOffer(c.server, c.name) {
			t.Errorf("MayOffer(%q, %q) = true", c.server, c.name)
		}
	}
}
