package argcheck

import (
	"encoding/json"
	"testing"

	"demiurge.dev/catalog"
)

const readFileSchema = `{"type":"object","additionalProperties":false,"required":["path"],
  "properties":{"path":{"type":"string"},"offset":{"type":"integer"}}}`

// FuzzCompileSchema feeds arbitrary bytes to CompileSchema as a tool's input
// schema (MCP servers supply these) with the compiler registered. Compiling
// must never panic, and a schema that compiles must support everything the
// catalog does with it, coercion included.
func FuzzCompileSchema(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `true`, toolSchema, openSchema, readFileSchema,
		`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/x"}]}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","maximum":3,"exclusiveMaximum":true}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"integer"}}}}`,
		`{"type":"object","patternProperties":{"^x":{"type":"integer"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		`{"type":"object","properties":{"a":{"type":"number","minimum":1e400}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := catalog.CompileSchema(raw)
		if err != nil {
			return
		}
		catalog.StrictCompatible(s)
		if doc := s.Document(); doc["type"] != "object" {
			t.Fatalf("canonical schema %s is not an object schema", s.JSON())
		}
		for _, args := range []string{`{}`, `{"a":"1","n":"2","t":"[\"x\",3]","x1":"5"}`, `{"a":{"a":{"a":[]}}}`} {
			out, err := s.Coerce(json.RawMessage(args))
			if err == nil {
				if verr := validate(s, out); verr != nil {
					t.Fatalf("Coerce result does not validate: %v", verr)
				}
			}
		}
	})
}
