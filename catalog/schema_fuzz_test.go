package catalog

import (
	"encoding/json"
	"testing"
)

// FuzzCompileSchema feeds arbitrary bytes to CompileSchema as a tool's input
// schema (MCP servers supply these), without a compiler as the launcher
// runs it. Parsing must never panic, and a schema that parses must support
// everything the catalog does with it. argcheck fuzzes it compiled.
func FuzzCompileSchema(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `true`, `{"type":"object","additionalProperties":{"type":"integer"}}`, readFileSchema,
		`{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/x"}]}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","maximum":3,"exclusiveMaximum":true}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"integer"}}}}`,
		`{"type":"object","patternProperties":{"^x":{"type":"integer"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		`{"type":"object","properties":{"a":{"type":"number","minimum":1e400}}}`,
		`{"type":"object","properties":{"a<&>\u2028":{"type":"number","minimum":1e21,"maximum":0.1,"default":-0,"description":"x < y & \u00e9"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := CompileSchema(raw)
		if err != nil {
			return
		}
		StrictCompatible(s)
		if doc := s.Document(); doc["type"] != "object" {
			t.Fatalf("canonical schema %s is not an object schema", s.JSON())
		}
		// The agent loop sends JSON as the schema of its definitions:
		// the bytes Definitions' document encodes to.
		if doc, _ := json.Marshal(s.Document()); string(doc) != string(s.JSON()) {
			t.Fatalf("the document encodes to %s, the schema's JSON is %s", doc, s.JSON())
		}
		if s.Checker() != nil {
			t.Fatal("a schema compiled without a registered compiler")
		}
	})
}
