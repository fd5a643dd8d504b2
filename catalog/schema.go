package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"demiurge.dev/catalog/internal/jsonvalue"
)

// MaxSchemaBytes bounds a tool's input schema. Schemas come from plugins and
// MCP servers; a megabyte is far beyond any real tool and keeps a hostile
// server from making catalog building expensive.
const MaxSchemaBytes = 1 << 20

// Schema is a tool input schema: its canonical document, and the argument
// checker compiled from it when a schema compiler is registered. It is
// immutable and safe for concurrent use.
type Schema struct {
	checker ArgChecker
	// canonical is the normalised schema document (root type object,
	// root properties present, root $schema removed), compact with sorted
	// keys: what providers are sent and what the fingerprint hashes.
	canonical json.RawMessage
	// doc is canonical decoded, for the catalog's own read-only walks;
	// callers get fresh copies from Document.
	doc map[string]any
}

// CompileSchema parses a tool's JSON Schema and, when a schema compiler is
// registered (see RegisterSchemaCompiler), compiles it. An empty or null
// schema means "no arguments" ({"type":"object","properties":{}}). The
// root must describe an object, because tool arguments are always an
// object.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > MaxSchemaBytes {
		return nil, fmt.Errorf("schema is %d bytes, over the %d byte limit", len(trimmed), MaxSchemaBytes)
	}
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte(`{"type":"object","properties":{}}`)
	}
	doc, err := jsonvalue.Decode(trimmed)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if err := jsonvalue.CheckNumbersIn(doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema must be a JSON object describing the arguments object, got %s", jsonvalue.Kind(doc))
	}
	switch t := root["type"].(type) {
	case nil:
		if _, present := root["type"]; present {
			return nil, errors.New(`schema root "type" must be "object", got null`)
		}
	case string:
		if t != "object" {
			return nil, fmt.Errorf(`schema root "type" must be "object" (tool arguments are an object), got %q`, t)
		}
	default:
		return nil, fmt.Errorf(`schema root "type" must be the string "object", got %s`, jsonvalue.Kind(t))
	}

	var checker ArgChecker
	if compile := registeredCompiler(); compile != nil {
		// The compiler words its own errors ("schema does not compile: …").
		if checker, err = compile(doc); err != nil {
			return nil, err
		}
	}

	canonical, norm, err := canonicalSchema(root)
	if err != nil {
		return nil, err
	}
	return &Schema{checker: checker, canonical: canonical, doc: norm}, nil
}

// canonicalSchema normalises the root for providers: an explicit object type
// and a properties map (OpenAI rejects an object schema without properties),
// and no $schema (providers do not need the dialect, and it costs tokens).
// The compiled schema keeps the original dialect.
func canonicalSchema(root map[string]any) (json.RawMessage, map[string]any, error) {
	norm := make(map[string]any, len(root)+2)
	for k, v := range root {
		norm[k] = v
	}
	delete(norm, "$schema")
	norm["type"] = "object"
	if _, ok := norm["properties"]; !ok {
		norm["properties"] = map[string]any{}
	}
	b, err := json.Marshal(norm)
	if err != nil {
		return nil, nil, fmt.Errorf("schema: re-encoding failed: %w", err)
	}
	return b, norm, nil
}

// JSON returns the normalised schema document. The caller owns the copy.
func (s *Schema) JSON() json.RawMessage {
	return bytes.Clone(s.canonical)
}

// Document returns a fresh decoded copy of the normalised schema, numbers as
// json.Number, for embedding in provider definitions.
func (s *Schema) Document() map[string]any {
	dec := json.NewDecoder(bytes.NewReader(s.canonical))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		// canonical was produced by json.Marshal of a map; it always decodes.
		panic(fmt.Sprintf("catalog: canonical schema does not decode: %v", err))
	}
	return m
}
