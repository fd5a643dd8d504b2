package catalog

import (
	"sync"
)

// schemaCacheBytes bounds the schema text the cache keeps. Catalogs are
// resolved every turn from the same plugin and MCP schemas; compiling each
// one again costs tens of microseconds a tool, which a turn with hundreds of
// MCP tools cannot afford. A few megabytes hold every realistic catalog.
const schemaCacheBytes = 8 << 20

// schemaCache maps a schema's exact bytes to its compiled Schema (immutable
// and safe to share). Keying by the bytes themselves, not a hash, makes a
// false hit impossible. When full it starts over: simple, bounded, and a
// catalog that changes wholesale pays one recompilation.
type schemaCache struct {
	mu      sync.Mutex
	entries map[string]*cachedSchema
	bytes   int
}

type cachedSchema struct {
	schema *Schema
	strict bool
	// reasons are StrictCompatible's; callers get a copy.
	reasons []string
}

var compiledSchemas = &schemaCache{entries: map[string]*cachedSchema{}}

func (c *schemaCache) get(raw []byte) (*cachedSchema, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(raw)]
	// A schema parsed before a compiler was registered has no checker; it
	// must not stand in for a compiled one.
	if ok && (e.schema.checker == nil) != (registeredCompiler() == nil) {
		return nil, false
	}
	return e, ok
}

func (c *schemaCache) put(raw []byte, e *cachedSchema) {
	if len(raw) > schemaCacheBytes/16 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(raw) > schemaCacheBytes {
		c.entries, c.bytes = map[string]*cachedSchema{}, 0
	}
	if _, ok := c.entries[string(raw)]; !ok {
		c.entries[string(raw)] = e
		c.bytes += len(raw)
	}
}

// resolveSchema compiles a tool's schema and checks it for OpenAI strict
// mode, once per distinct schema text.
func resolveSchema(raw []byte) (*Schema, bool, []string, error) {
	if e, ok := compiledSchemas.get(raw); ok {
		return e.schema, e.strict, append([]string(nil), e.reasons...), nil
	}
	schema, err := CompileSchema(raw)
	if err != nil {
		return nil, false, nil, err
	}
	strict, reasons := StrictCompatible(schema)
	compiledSchemas.put(raw, &cachedSchema{schema: schema, strict: strict, reasons: reasons})
	return schema, strict, append([]string(nil), reasons...), nil
}
