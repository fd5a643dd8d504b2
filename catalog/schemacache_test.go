package catalog

import (
	"fmt"
	"testing"
)

func TestResolveSchemaIsCompiledOncePerText(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`)
	first, strict, reasons, err := resolveSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	if strict || len(reasons) == 0 {
		t.Fatalf("schema with open additionalProperties should not be strict-compatible: %v %v", strict, reasons)
	}
	reasons[0] = "changed by a caller"
	again, _, reasons2, err := resolveSchema(append([]byte(nil), raw...))
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Error("the same schema text was compiled twice")
	}
	if reasons2[0] == "changed by a caller" {
		t.Error("a caller's edit of the strict reasons reached the cache")
	}
	other, _, _, err := resolveSchema([]byte(`{"type":"object","properties":{"b":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if other == first {
		t.Error("different schema texts share one compiled schema")
	}
	if _, _, _, err := resolveSchema([]byte(`{"type":"array"}`)); err == nil {
		t.Error("an invalid schema resolved")
	}
}

func TestSchemaCacheStaysBounded(t *testing.T) {
	c := &schemaCache{entries: map[string]*cachedSchema{}}
	s, err := CompileSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	pad := make([]byte, schemaCacheBytes/32)
	for i := range 100 {
		raw := append([]byte(fmt.Sprintf("%d", i)), pad...)
		c.put(raw, &cachedSchema{schema: s})
		if c.bytes > schemaCacheBytes {
			t.Fatalf("cache holds %d bytes, over its %d byte bound", c.bytes, schemaCacheBytes)
		}
	}
	huge := make([]byte, schemaCacheBytes/8)
	c.put(huge, &cachedSchema{schema: s})
	if _, ok := c.get(huge); ok {
		t.Error("a schema over a sixteenth of the bound was cached")
	}
}
