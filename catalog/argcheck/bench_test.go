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
