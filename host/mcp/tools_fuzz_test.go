package mcp

import (
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
)

// FuzzToolList feeds arbitrary tools/list results (untrusted server
// output) through decoding, filtering and naming: no panic, and whatever
// is offered has a valid server__tool name, a schema the catalog compiles
// and the exact schema bytes the server sent.
func FuzzToolList(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"echo","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]}]}}],"nextCursor":"x"}`))
	f.Add([]byte(`{"tools":[{"name":"a b","inputSchema":{"type":"string"}},{"name":"ok"},{"name":"ok"}]}`))
	f.Add([]byte(`{"tools":[{"name":"` + strings.Repeat("x", 70) + `","inputSchema":{"$ref":"http://evil.example/s.json"}}]}`))
	f.Add([]byte(`{"tools":null}`))
	f.Add([]byte(`[]`))
	s := core.MCPServer{ID: "srv", File: "srv.yaml", Transport: core.MCPStdio, Exclude: []string{"drop"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, _, err := decodeToolPage(data)
		if err != nil {
			return
		}
		offered, _, err := selectTools(s, tools)
		if err != nil {
			return
		}
		for _, o := range offered {
			want, _ := ToolName("srv", o.raw.Name)
			if err := catalog.ValidToolName(o.name); err != nil || o.name != want || o.raw.Name == "drop" {
				t.Fatalf("offered %q for %q: %v", o.name, o.raw.Name, err)
			}
			if _, err := catalog.CompileSchema(o.raw.InputSchema); err != nil {
				t.Fatalf("offered an uncompilable schema: %v", err)
			}
			spec := spec(&plan{server: s, secrets: knownSecrets(s)}, o)
			if string(spec.InputSchema) != string(o.raw.InputSchema) {
				t.Fatal("the schema changed")
			}
		}
	})
}
