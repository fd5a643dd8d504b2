package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/core"
)

// TestDuplicateToolNames: a name listed twice is left out, every copy of
// it, with one diagnostic that says where; the other tools stay.
func TestDuplicateToolNames(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	tools := []rawTool{
		{Name: "t", InputSchema: schema}, {Name: "u", InputSchema: schema},
		{Name: "t", InputSchema: schema}, {Name: "t", InputSchema: schema},
	}
	out, diags, err := selectTools(core.MCPServer{ID: "x"}, tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].name != "x__u" {
		t.Fatalf("offered %+v", out)
	}
	if len(diags) != 1 || !strings.Contains(diags[0], `lists tool "t" 3 times (entries 1, 3, 4`) || !strings.Contains(diags[0], "x__t is not offered") {
		t.Fatalf("diagnostics %q", diags)
	}
}
