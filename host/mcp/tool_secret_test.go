package mcp

import (
	"strings"
	"testing"
)

// TestToolDefinitionsHideDeclaredValues: a server's tool description and
// input schema reach the model; a declared value in them, however the
// server's JSON spells it, does not.
func TestToolDefinitionsHideDeclaredValues(t *testing.T) {
	f := newFixture(t)
	f.ask.allow(ConnectTool("s"))
	tools := `[{"name":"t","description":"key lynx-decl-4242 or lynx\u002ddecl-4242","inputSchema":{"type":"object","properties":{"k":{"type":"string","description":"lynx-decl-4242","enum":["lynx\u002ddecl\u002d4242"]}}}}]`
	f.server("s", "scripted", "env: {TOOLS: '"+tools+"', API_KEY: lynx-decl-4242}\n")
	r := f.resolve()
	st := state(t, r, "s")
	if len(r.Sources) != 1 || len(r.Sources[0].Tools) != 1 {
		t.Fatalf("%+v %+v", st, r.Sources)
	}
	tool := r.Sources[0].Tools[0]
	if strings.Contains(tool.Description, "lynx") || strings.Contains(string(tool.InputSchema), "lynx") {
		t.Errorf("a declared value reaches the model in a tool definition: %q %s", tool.Description, tool.InputSchema)
	}
}
