package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// OpenAI strict mode (structured outputs) accepts a subset of JSON Schema.
// These limits and keyword lists follow OpenAI's "Supported schemas" guide.
const (
	strictMaxDepth      = 10
	strictMaxProperties = 5000
	strictMaxEnumValues = 1000
)

var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true,
	"$ref": true, "$defs": true, "definitions": true,
	"description": true, "title": true,
	"pattern": true, "format": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"minItems": true, "maxItems": true,
}

var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

var strictTypes = map[string]bool{
	"string": true, "number": true, "integer": true, "boolean": true,
	"object": true, "array": true, "null": true,
}

// StrictCompatible reports whether OpenAI can be sent the schema with
// strict: true, and if not, why: every object must set additionalProperties
// to false and require all its properties, only supported keywords may
// appear, the root must be an object (not anyOf), and the size limits hold.
// Being conservative costs only strict mode, never a rejected request.
func StrictCompatible(s *Schema) (bool, []string) {
	c := strictChecker{}
	root := s.doc
	if _, ok := root["anyOf"]; ok {
		c.reason("#", "the root must be an object, not anyOf")
	}
	c.node(root, "#", 0)
	if c.properties > strictMaxProperties {
		c.reason("#", fmt.Sprintf("has %d properties in total; strict mode allows %d", c.properties, strictMaxProperties))
	}
	if c.enumValues > strictMaxEnumValues {
		c.reason("#", fmt.Sprintf("has %d enum values in total; strict mode allows %d", c.enumValues, strictMaxEnumValues))
	}
	return len(c.reasons) == 0, c.reasons
}

type strictChecker struct {
	reasons    []string
	seen       map[string]bool
	properties int
	enumValues int
	tooDeep    bool
}

func (c *strictChecker) reason(path, msg string) {
	r := path + ": " + msg
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if !c.seen[r] {
		c.seen[r] = true
		c.reasons = append(c.reasons, r)
	}
}

func (c *strictChecker) node(v any, path string, depth int) {
	m, ok := v.(map[string]any)
	if !ok {
		c.reason(path, "boolean schemas are not supported")
		return
	}
	if depth > strictMaxDepth && !c.tooDeep {
		c.tooDeep = true
		c.reason(path, fmt.Sprintf("nests deeper than %d levels", strictMaxDepth))
	}
	for _, k := range sortedKeys(m) {
		if !strictKeywords[k] {
			c.reason(path, fmt.Sprintf("keyword %q is not supported", k))
		}
	}
	if ref, ok := m["$ref"]; ok {
		if r, isStr := ref.(string); !isStr || !strings.HasPrefix(r, "#") {
			c.reason(path, "$ref must point inside the schema")
		}
	}
	types, typed := c.types(m, path)
	_, hasAnyOf := m["anyOf"]
	_, hasRef := m["$ref"]
	_, hasEnum := m["enum"]
	_, hasConst := m["const"]
	if !typed && !hasAnyOf && !hasRef && !hasEnum && !hasConst {
		c.reason(path, "has no type")
	}
	if f, ok := m["format"]; ok {
		if s, _ := f.(string); !strictFormats[s] {
			c.reason(path, fmt.Sprintf("format %v is not supported", f))
		}
	}
	if e, ok := m["enum"].([]any); ok {
		c.enumValues += len(e)
	}
	if _, hasProps := m["properties"]; types["object"] || hasProps {
		c.object(m, path, depth)
	}
	if types["array"] {
		if items, ok := m["items"]; ok {
			c.node(items, path+"/items", depth+1)
		} else {
			c.reason(path, "an array needs an items schema")
		}
	}
	if alts, ok := m["anyOf"].([]any); ok {
		for i, alt := range alts {
			c.node(alt, fmt.Sprintf("%s/anyOf/%d", path, i), depth+1)
		}
	}
	for _, defs := range []string{"$defs", "definitions"} {
		if d, ok := m[defs].(map[string]any); ok {
			for _, k := range sortedKeys(d) {
				c.node(d[k], path+"/"+defs+"/"+k, depth)
			}
		}
	}
}

func (c *strictChecker) types(m map[string]any, path string) (map[string]bool, bool) {
	out := map[string]bool{}
	switch t := m["type"].(type) {
	case nil:
		return out, false
	case string:
		out[t] = true
	case []any:
		for _, e := range t {
			s, _ := e.(string)
			out[s] = true
		}
	}
	for t := range out {
		if !strictTypes[t] {
			c.reason(path, fmt.Sprintf("type %q is not supported", t))
		}
	}
	return out, true
}

func (c *strictChecker) object(m map[string]any, path string, depth int) {
	if ap, ok := m["additionalProperties"].(bool); !ok || ap {
		c.reason(path, "additionalProperties must be false")
	}
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	c.properties += len(props)
	for _, k := range sortedKeys(props) {
		if !required[k] {
			c.reason(path, fmt.Sprintf("property %q is optional; strict mode requires every property (make it nullable instead)", k))
		}
		c.node(props[k], path+"/properties/"+k, depth+1)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
