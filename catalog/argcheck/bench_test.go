package argcheck

import (
	"encoding/json"
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

// BenchmarkCoerceEcho is the schema step of the MCP call-overhead
// benchmark's call: one short string argument.
func BenchmarkCoerceEcho(b *testing.B) {
	s := mustSchema(b, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	args := json.RawMessage(`{"text":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Coerce(args); err != nil {
			b.Fatal(err)
		}
	}
}
