package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCoerce is the schema step of every call: parse, repair, validate.
func BenchmarkCoerce(b *testing.B) {
	s := mustSchema(b, toolSchema)
	cases := map[string]string{
		"valid":    `{"path":"src/main.go","limit":100,"flag":true,"paths":["a","b"],"edits":[{"old":"x","n":2}]}`,
		"repaired": `{"path":"src/main.go","limit":"100","flag":"true","paths":"a","obj":"{\"a\":\"4\"}"}`,
		"invalid":  `{"pth":"src/main.go","limit":"ten","mode":"fats"}`,
		"256KiB":   `{"path":"` + strings.Repeat("x", MaxArgumentBytes-16) + `"}`,
	}
	for _, name := range []string{"valid", "repaired", "invalid", "256KiB"} {
		args := json.RawMessage(cases[name])
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			for b.Loop() {
				s.Coerce(args)
			}
		})
	}
}

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
