package catalog

import (
	"fmt"
	"strings"
	"testing"
)

func TestStrictCompatible(t *testing.T) {
	deep := `{"type":"string"}`
	for range 11 {
		deep = `{"type":"object","additionalProperties":false,"required":["x"],"properties":{"x":` + deep + `}}`
	}
	var many []string
	for i := range 1001 {
		many = append(many, fmt.Sprintf(`"v%d"`, i))
	}
	tests := []struct {
		name    string
		schema  string
		ok      bool
		reasons []string // substrings, each must appear among the reasons
	}{
		{name: "no arguments", schema: `{"type":"object","additionalProperties":false}`, ok: true},
		{name: "all required, closed", ok: true, schema: `{"type":"object","additionalProperties":false,"required":["path","limit"],
			"properties":{"path":{"type":"string","description":"file"},"limit":{"type":["integer","null"],"minimum":1}}}`},
		{name: "nested closed objects and arrays", ok: true, schema: `{"type":"object","additionalProperties":false,"required":["edits"],
			"properties":{"edits":{"type":"array","minItems":1,"items":{"type":"object","additionalProperties":false,"required":["old"],"properties":{"old":{"type":"string","pattern":"^a"}}}}}}`},
		{name: "anyOf, enum, const, ref, defs", ok: true, schema: `{"type":"object","additionalProperties":false,"required":["a","b","c"],
			"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"b":{"enum":["x","y"]},"c":{"$ref":"#/$defs/c"}},
			"$defs":{"c":{"type":"object","additionalProperties":false,"required":["d"],"properties":{"d":{"const":1}}}}}`},
		{name: "supported format", ok: true, schema: `{"type":"object","additionalProperties":false,"required":["w"],"properties":{"w":{"type":"string","format":"date-time"}}}`},
		{name: "open root", schema: `{"type":"object","properties":{}}`, reasons: []string{"#: additionalProperties must be false"}},
		{name: "optional property", schema: `{"type":"object","additionalProperties":false,"properties":{"limit":{"type":"integer"}}}`,
			reasons: []string{`#: property "limit" is optional`}},
		{name: "open nested object", schema: `{"type":"object","additionalProperties":false,"required":["o"],"properties":{"o":{"type":"object","properties":{}}}}`,
			reasons: []string{"#/properties/o: additionalProperties must be false"}},
		{name: "open object in defs", schema: `{"type":"object","additionalProperties":false,"required":["o"],"properties":{"o":{"$ref":"#/$defs/o"}},"$defs":{"o":{"type":"object"}}}`,
			reasons: []string{"#/$defs/o: additionalProperties must be false"}},
		{name: "unsupported keywords", schema: `{"type":"object","additionalProperties":false,"required":["s"],"properties":{"s":{"type":"string","minLength":1,"default":"x"}},"allOf":[{"type":"object"}]}`,
			reasons: []string{`#: keyword "allOf" is not supported`, `#/properties/s: keyword "default" is not supported`, `#/properties/s: keyword "minLength" is not supported`}},
		{name: "oneOf", schema: `{"type":"object","additionalProperties":false,"required":["s"],"properties":{"s":{"oneOf":[{"type":"string"}]}}}`,
			reasons: []string{`keyword "oneOf" is not supported`, "#/properties/s: has no type"}},
		{name: "untyped property", schema: `{"type":"object","additionalProperties":false,"required":["s"],"properties":{"s":{"description":"anything"}}}`,
			reasons: []string{"#/properties/s: has no type"}},
		{name: "array without items", schema: `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"array"}}}`,
			reasons: []string{"an array needs an items schema"}},
		{name: "unsupported format", schema: `{"type":"object","additionalProperties":false,"required":["u"],"properties":{"u":{"type":"string","format":"uri"}}}`,
			reasons: []string{`format uri is not supported`}},
		{name: "additionalProperties schema", schema: `{"type":"object","additionalProperties":{"type":"string"},"properties":{}}`,
			reasons: []string{"additionalProperties must be false"}},
		{name: "root anyOf", schema: `{"anyOf":[{"type":"object"}]}`, reasons: []string{"the root must be an object, not anyOf"}},
		{name: "too deep", schema: deep, reasons: []string{"nests deeper than 10 levels"}},
		{name: "too many enum values", schema: `{"type":"object","additionalProperties":false,"required":["e"],"properties":{"e":{"enum":[` + strings.Join(many, ",") + `]}}}`,
			reasons: []string{"1001 enum values"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, reasons := StrictCompatible(mustSchema(t, tt.schema))
			if ok != tt.ok {
				t.Fatalf("StrictCompatible = %v (%q), want %v", ok, reasons, tt.ok)
			}
			if ok && len(reasons) != 0 {
				t.Fatalf("compatible but with reasons %q", reasons)
			}
			all := strings.Join(reasons, "\n")
			for _, want := range tt.reasons {
				if !strings.Contains(all, want) {
					t.Errorf("reasons\n%s\ndo not contain %q", all, want)
				}
			}
		})
	}
}
