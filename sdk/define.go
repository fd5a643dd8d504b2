package sdk

import (
	"encoding/json"
	"fmt"

	"github.com/invopop/jsonschema"
)

// Define makes a Tool from a parameter struct P and a function. The JSON
// Schema is derived from P's json and jsonschema tags, so schema and code
// cannot drift: a field without omitempty is required, unknown arguments
// are refused. Set spec.Schema to override the derived schema.
func Define[P any](spec Spec, run func(ctx *Context, params P) (*Result, error)) Tool {
	if spec.Schema == nil {
		spec.Schema = SchemaOf[P]()
	}
	return &definedTool[P]{spec: spec, run: run}
}

// SchemaOf derives the JSON Schema of a parameter struct.
func SchemaOf[P any]() json.RawMessage {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	var zero P
	s := r.Reflect(&zero)
	s.Version = ""
	s.ID = ""
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("sdk: schema of %T: %v", zero, err))
	}
	return raw
}

type definedTool[P any] struct {
	spec Spec
	run  func(*Context, P) (*Result, error)
}

func (t *definedTool[P]) Spec() Spec { return t.spec }

func (t *definedTool[P]) Execute(ctx *Context, args json.RawMessage) (*Result, error) {
	var p P
	if len(args) > 0 {
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, fmt.Errorf("arguments do not fit %s: %w", t.spec.Name, err)
		}
	}
	return t.run(ctx, p)
}
