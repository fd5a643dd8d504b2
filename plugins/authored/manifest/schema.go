package manifest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// schemaLocation is the in-memory URL the compiler files a schema under;
// nothing is fetched from it.
const schemaLocation = "https://demiurge.invalid/tool.yaml/input_schema.json"

// maxSchemaDepth bounds nesting: a schema is a small document.
const maxSchemaDepth = 64

// schema turns input_schema into JSON and checks that it is a valid JSON
// Schema describing an object, so that a broken schema is reported here,
// with its line, rather than when the host builds its catalog.
func (d *decoder) schema(n *yaml.Node, field string) (json.RawMessage, error) {
	if isNull(n) {
		return json.RawMessage(`{}`), nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.errorf(n, field, "want a mapping (a JSON Schema object), got %s", describe(n))
	}
	v, err := d.value(n, field, 0)
	if err != nil {
		return nil, err
	}
	root := v.(map[string]any)
	if t, ok := root["type"]; ok && t != "object" {
		return nil, d.errorf(n, field+".type", "must be \"object\": tool arguments are an object, got %v", t)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, d.errorf(n, field, "cannot be written as JSON: %v", err)
	}
	if err := compileSchema(raw); err != nil {
		return nil, d.errorf(n, field, "is not a valid JSON Schema: %v", err)
	}
	return raw, nil
}

// value converts a YAML node to the JSON value it spells, refusing what
// JSON cannot say (aliases, non-string keys, infinities).
func (d *decoder) value(n *yaml.Node, field string, depth int) (any, error) {
	if depth > maxSchemaDepth {
		return nil, d.errorf(n, field, "nests deeper than %d levels", maxSchemaDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return nil, d.errorf(n, field, "YAML aliases are not allowed in tool.yaml; write the value out")
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" || k.ShortTag() == "!!null" {
				return nil, d.errorf(k, field, "keys must be plain names, got %s", describe(k))
			}
			f := field + "." + clip(k.Value)
			if _, dup := out[k.Value]; dup {
				return nil, d.errorf(k, f, "duplicate key; keep one")
			}
			val, err := d.value(v, f, depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = val
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, it := range n.Content {
			val, err := d.value(it, fmt.Sprintf("%s[%d]", field, i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, val)
		}
		return out, nil
	case yaml.ScalarNode:
		return d.scalar(n, field)
	}
	return nil, d.errorf(n, field, "unexpected %s", describe(n))
}

func (d *decoder) scalar(n *yaml.Node, field string) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, d.errorf(n, field, "%v", err)
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, d.errorf(n, field, "number %s does not fit 64 bits", clip(n.Value))
		}
		return json.Number(strconv.FormatInt(i, 10)), nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, d.errorf(n, field, "%s is not a JSON number", clip(n.Value))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "!!str":
		return n.Value, nil
	}
	return nil, d.errorf(n, field, "%s has no JSON form", describe(n))
}

// compileSchema compiles raw as a JSON Schema (draft 2020-12 unless it says
// otherwise) with references limited to the schema itself.
func compileSchema(raw []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytesReader(raw))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaLocation, doc); err != nil {
		return err
	}
	_, err = c.Compile(schemaLocation)
	return err
}

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refers to %s: only references inside the schema itself (#/$defs/...) are allowed", url)
}

func bytesReader(b []byte) *strings.Reader { return strings.NewReader(string(b)) }
