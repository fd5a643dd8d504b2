package catalog

import (
	"fmt"
	"testing"
)

// BenchmarkResolve is the per-turn catalog resolution for a realistic
// number of tools, overrides included.
func BenchmarkResolve(b *testing.B) {
	for _, n := range []int{10, 100} {
		var tools []ToolSpec
		for i := range n {
			s := writeFileSpec()
			s.Name = fmt.Sprintf("tool_%d", i)
			tools = append(tools, s)
		}
		sources := []Source{{Kind: SourceBuiltin, Name: "coding", Tools: tools}}
		overrides := map[string]Override{"tool_1": {Risk: ptr(RiskLow)}, "tool_2": {ApprovalPolicy: ptr(ApprovalDeny)}}
		b.Run(fmt.Sprint(n, "tools"), func(b *testing.B) {
			for b.Loop() {
				if _, err := Resolve(sources, overrides); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDefinitions(b *testing.B) {
	c, err := Resolve(baseSources(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range Providers {
		b.Run(string(p), func(b *testing.B) {
			for b.Loop() {
				c.Definitions(p)
			}
		})
	}
}
