package catalog

import (
	"encoding/json"
	"fmt"
	"testing"
)

// mcpFleet is 300 MCP tools over 10 servers, each with a description of
// about 200 characters and a four-property schema with descriptions, about
// what MCP servers in use describe.
func mcpFleet() []Source {
	var out []Source
	for s := range 10 {
		server := fmt.Sprintf("srv%02d", s)
		src := Source{Kind: SourceMCP, Name: server, Binding: &binding{server}}
		for i := range 30 {
			name := fmt.Sprintf("%s__tool_%02d", server, i)
			schema := fmt.Sprintf(`{"type":"object","properties":{
"query":{"type":"string","description":"The search text or identifier that selects the %s records to act on."},
"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Most records to return."},
"cursor":{"type":"string","description":"Continue after the page this cursor names."},
"fields":{"type":"array","items":{"type":"string"},"description":"Fields of each record to include."}},
"required":["query"]}`, name)
			src.Tools = append(src.Tools, ToolSpec{
				Name:        name,
				Description: fmt.Sprintf("Tool %d of server %s: looks up records in the remote system, filters them by the query, and returns a page of results with the selected fields, or a cursor to continue from.", i, server),
				InputSchema: json.RawMessage(schema),
				Metadata:    Metadata{Risk: RiskMedium, Capability: "mcp.call:" + server, ApprovalPolicy: ApprovalPrompt},
				Effect:      EffectNetwork,
				Provenance:  Provenance{Kind: SourceMCP, Toolset: server, Path: "agent/mcp/" + server + ".yaml"},
			})
		}
		out = append(out, src)
	}
	search := readFileSpec()
	search.Name, search.Description = SearchCapabilitiesTool, "Find and activate deferred tools by words from their name or purpose."
	return append(out, Source{Kind: SourceBuiltin, Name: "demiurge_control", Tools: []ToolSpec{search}, Binding: &binding{"control"}})
}

// BenchmarkDefinitions300MCP measures the provider definitions of a core
// with 300 MCP tools, all visible and all deferred (their servers in
// tools.deferred), and reports their size in bytes.
func BenchmarkDefinitions300MCP(b *testing.B) {
	cat, err := Resolve(mcpFleet(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var servers []string
	for s := range 10 {
		servers = append(servers, fmt.Sprintf("srv%02d", s))
	}
	for _, tc := range []struct {
		name string
		cat  *Catalog
	}{{"visible", cat}, {"deferred", cat.Defer(servers, NewDisclosure())}} {
		for _, p := range Providers {
			b.Run(tc.name+"/"+string(p), func(b *testing.B) {
				var size int
				for b.Loop() {
					defs, err := tc.cat.Definitions(p)
					if err != nil {
						b.Fatal(err)
					}
					raw, err := json.Marshal(defs)
					if err != nil {
						b.Fatal(err)
					}
					size = len(raw)
				}
				b.ReportMetric(float64(size), "def-bytes")
				b.ReportMetric(float64(size)/4, "est-tokens")
			})
		}
	}
}

// BenchmarkSearchCapabilities300 is one search over 300 deferred tools.
func BenchmarkSearchCapabilities300(b *testing.B) {
	var cands []CapabilityCandidate
	for _, src := range mcpFleet() {
		for _, t := range src.Tools {
			cands = append(cands, CapabilityCandidate{Name: t.Name, Description: t.Description, Source: src.Name})
		}
	}
	for b.Loop() {
		if len(SearchCapabilities(cands, "srv07 records cursor")) == 0 {
			b.Fatal("no match")
		}
	}
}
