package argcheck

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestCompileSchema covers what only a compiler can refuse; the parsing
// and canonicalisation cases are catalog's TestCompileSchema.
func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantErr string // substring; "" means success
	}{
		{name: "valid", raw: `{"type":"object","properties":{"n":{"$ref":"#/$defs/count"}},"$defs":{"count":{"type":"integer"}}}`},
		{name: "draft-07 dialect kept", raw: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer"}}}`},
		{name: "unknown type name", raw: `{"type":"object","properties":{"a":{"type":"strnig"}}}`, wantErr: "schema does not compile"},
		{name: "remote ref refused", raw: `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, wantErr: "only references inside the schema"},
		{name: "file ref refused", raw: `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, wantErr: "only references inside the schema"},
		{name: "dangling internal ref", raw: `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, wantErr: "does not compile"},
		{name: "pattern Go cannot compile", raw: `{"type":"object","properties":{"a":{"type":"string","pattern":"(?=x)"}}}`, wantErr: "does not compile"},
		{name: "parse errors come first", raw: `{"type":"string"}`, wantErr: `must be "object"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := catalog.CompileSchema(json.RawMessage(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("CompileSchema error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CompileSchema: %v", err)
			}
			if _, ok := s.Checker().(*Checker); !ok {
				t.Fatalf("Checker() = %T, want the registered *argcheck.Checker", s.Checker())
			}
		})
	}
}

// TestResolveRefusesSchemaThatDoesNotCompile is the full host's view: with
// the compiler registered, Resolve names the tool and the reason.
func TestResolveRefusesSchemaThatDoesNotCompile(t *testing.T) {
	src := []catalog.Source{{Kind: catalog.SourceMCP, Name: "docs", Tools: []catalog.ToolSpec{{
		Name: "read_file", Description: "Read.", Effect: catalog.EffectRead,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"pathname"}}}`),
	}}}}
	_, err := catalog.Resolve(src, nil)
	want := `tool "read_file" from MCP server "docs": input schema: schema does not compile: `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Resolve error = %v, want prefix %q", err, want)
	}
}

func TestResolvedEntriesCoerce(t *testing.T) {
	src := []catalog.Source{{Kind: catalog.SourceBuiltin, Name: "coding", Tools: []catalog.ToolSpec{{
		Name: "read_file", Description: "Read.", Effect: catalog.EffectRead,
		InputSchema: json.RawMessage(`{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"offset":{"type":"integer"}}}`),
	}}}}
	c, err := catalog.Resolve(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := c.Lookup("read_file")
	if got, err := e.Schema.Coerce(json.RawMessage(`{"path":"a","offset":"3"}`)); err != nil || got["offset"] != json.Number("3") {
		t.Errorf("entry schema Coerce = %v, %v", got, err)
	}
	_, err = e.Schema.Coerce(json.RawMessage(`{}`))
	var ae *catalog.ArgumentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "missing required argument 'path'") {
		t.Errorf("Coerce of {} = %v, want the missing argument named", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a second RegisterSchemaCompiler did not panic")
		}
	}()
	catalog.RegisterSchemaCompiler(Compile)
}

func mustSchema(t testing.TB, raw string) *catalog.Schema {
	t.Helper()
	s, err := catalog.CompileSchema(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("CompileSchema(%s): %v", raw, err)
	}
	return s
}

// validate checks a value against the compiled schema without coercion.
func validate(s *catalog.Schema, v any) error { return s.Checker().(*Checker).Validate(v) }
