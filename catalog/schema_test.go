package catalog

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantErr string // substring; "" means success
		want    string // canonical JSON when it succeeds
	}{
		{name: "empty means no arguments", raw: "", want: `{"properties":{},"type":"object"}`},
		{name: "null means no arguments", raw: " null ", want: `{"properties":{},"type":"object"}`},
		{name: "missing root type becomes object", raw: `{"properties":{"a":{"type":"string"}}}`,
			want: `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{name: "missing properties added", raw: `{"type":"object"}`, want: `{"properties":{},"type":"object"}`},
		{name: "dialect dropped from the provider copy", raw: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer"}}}`,
			want: `{"properties":{"n":{"type":"integer"}},"type":"object"}`},
		{name: "key order and whitespace canonical", raw: "{ \"type\" : \"object\",\n \"required\":[\"b\"], \"properties\":{\"b\":{\"type\":\"string\"}}}",
			want: `{"properties":{"b":{"type":"string"}},"required":["b"],"type":"object"}`},
		{name: "internal ref", raw: `{"type":"object","properties":{"n":{"$ref":"#/$defs/count"}},"$defs":{"count":{"type":"integer"}}}`,
			want: `{"$defs":{"count":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/count"}},"type":"object"}`},
		{name: "big numbers keep their digits", raw: `{"type":"object","properties":{"n":{"type":"integer","maximum":123456789012345678901234567890}}}`,
			want: `{"properties":{"n":{"maximum":123456789012345678901234567890,"type":"integer"}},"type":"object"}`},
		{name: "root string type", raw: `{"type":"string"}`, wantErr: `must be "object"`},
		{name: "root type list", raw: `{"type":["object","null"]}`, wantErr: `must be the string "object"`},
		{name: "root type null", raw: `{"type":null}`, wantErr: `got null`},
		{name: "root array", raw: `[1]`, wantErr: "got array"},
		{name: "root boolean schema", raw: `true`, wantErr: "got boolean"},
		{name: "not JSON", raw: `{"type":`, wantErr: "not valid JSON"},
		{name: "huge exponent refused before parsing", raw: `{"type":"object","properties":{"a":{"type":"number","maximum":1e9999999}}}`, wantErr: "out of range"},
		{name: "oversized", raw: `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, wantErr: "byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := CompileSchema(json.RawMessage(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("CompileSchema error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CompileSchema: %v", err)
			}
			if got := string(s.JSON()); got != tt.want {
				t.Errorf("JSON() = %s\nwant     %s", got, tt.want)
			}
		})
	}
}

// TestSchemaWithoutCompiler is a binary that links no schema compiler
// (the launcher): schemas are parsed and canonicalised, what only a
// compiler refuses passes, and Coerce fails closed.
func TestSchemaWithoutCompiler(t *testing.T) {
	if registeredCompiler() != nil {
		t.Fatal("package catalog's own tests must run without a registered compiler")
	}
	for _, raw := range []string{
		`{"type":"object","properties":{"a":{"type":"strnig"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"(?=x)"}}}`,
	} {
		s := mustSchema(t, raw)
		if s.Checker() != nil {
			t.Errorf("%s: Checker() = %T without a compiler", raw, s.Checker())
		}
		if got, err := s.Coerce(json.RawMessage(`{"a":"x"}`)); !errors.Is(err, ErrSchemaNotCompiled) || got != nil {
			t.Errorf("%s: Coerce = %v, %v; want ErrSchemaNotCompiled", raw, got, err)
		}
	}
}

func TestSchemaDocumentIsACopy(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"a":{"type":"string"}}}`)
	d := s.Document()
	d["type"] = "mutated"
	d["properties"].(map[string]any)["a"] = nil
	if got := string(s.JSON()); got != `{"properties":{"a":{"type":"string"}},"type":"object"}` {
		t.Fatalf("mutating Document() changed the schema: %s", got)
	}
	j := s.JSON()
	j[0] = 'X'
	if s.JSON()[0] != '{' {
		t.Fatal("mutating JSON() changed the schema")
	}
}

func mustSchema(t testing.TB, raw string) *Schema {
	t.Helper()
	s, err := CompileSchema(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("CompileSchema(%s): %v", raw, err)
	}
	return s
}
