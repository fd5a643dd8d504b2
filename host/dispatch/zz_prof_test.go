package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/untrusted"
)

// temporary: one side only, for pprof diffs.
func BenchmarkZZSide(b *testing.B) {
	call := ToolCall{ID: "bench", Name: "page", Args: json.RawMessage(`{"bytes":1048576}`)}
	h := newHarness(b)
	src := h.source(b, "fixture", autoMeta)
	mcpSrc := src
	mcpSrc.Kind, mcpSrc.Name = catalog.SourceMCP, "docs"
	mcpSrc.Tools = append([]catalog.ToolSpec(nil), src.Tools...)
	for i := range mcpSrc.Tools {
		mcpSrc.Tools[i].Provenance = catalog.Provenance{Kind: catalog.SourceMCP, Toolset: "docs"}
	}
	plain := h.turn(b, []string{"fs.read"}, nil, src)
	screened := h.turn(b, []string{"fs.read"}, nil, mcpSrc)
	ctx := context.Background()
	t := plain
	switch os.Getenv("SIDE") {
	case "screen":
		t = screened
	case "env":
		t = screened
		screenText = noScreen
	}
	defer func() { screenText = untrusted.Screen }()
	t.Events = handoffSink{h.store}
	t.MaxCalls = b.N + 10
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out := t.Call(ctx, call); !out.OK() {
			b.Fatal(out.Status)
		}
	}
}
