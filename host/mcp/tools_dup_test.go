package mcp

import (
	"encoding/json"
	"slices"
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

// TestNameCollisionAfterConversion: tools whose converted names meet are
// all refused, with one diagnostic naming every original; a tool that
// converts to a free name is offered.
func TestNameCollisionAfterConversion(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	for _, c := range []struct {
		tools   []string
		offered []string
		diag    string
	}{
		{[]string{"a.b", "a_b", "c"}, []string{"x__c"}, `tools "a.b" and "a_b" all become x__a_b`},
		{[]string{"a/b", "a b", "a.b"}, nil, `tools "a/b" and "a b" and "a.b" all become x__a_b`},
		{[]string{"café", "cafe"}, nil, `tools "café" and "cafe" all become x__cafe`},
		{[]string{"files/read", "files.write"}, []string{"x__files_read", "x__files_write"}, ""},
	} {
		var tools []rawTool
		for _, n := range c.tools {
			tools = append(tools, rawTool{Name: n, InputSchema: schema})
		}
		out, diags, err := selectTools(core.MCPServer{ID: "x"}, tools)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range out {
			got = append(got, o.name)
		}
		if !slices.Equal(got, c.offered) {
			t.Errorf("%q: offered %q, want %q", c.tools, got, c.offered)
		}
		if c.diag == "" && len(diags) > 0 || c.diag != "" && (len(diags) != 1 || !strings.Contains(diags[0], c.diag)) {
			t.Errorf("%q: diagnostics %q, want one with %q", c.tools, diags, c.diag)
		}
	}
}
