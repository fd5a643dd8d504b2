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

// DefineChecked is Define for a tool with a precheck: check runs before
// approval and returns nil when the call may proceed.
func DefineChecked[P any](spec Spec, check, run func(ctx *Context, params P) (*Result, error)) Tool {
	if spec.Schema == nil {
		spec.Schema = SchemaOf[P]()
	}
	return &checkedTool[P]{definedTool[P]{spec: spec, run: run}, check}
}

type checkedTool[P any] struct {
	definedTool[P]
	check func(*Context, P) (*Result, error)
}

func (t *checkedTool[P]) Precheck(ctx *Context, args json.RawMessage) (*Result, error) {
	p, err := t.decode(args)
	if err != nil {
		return nil, err
	}
	return t.check(ctx, p)
}

// SchemaOf derives the JSON Schema of a parameter struct.
func SchemaOf[P any]() json.RawMessage {
	// No ExpandedStruct: with DoNotReference the root is inlined anyway,
	// and ExpandedStruct panics on an anonymous struct (struct{}).
	r := jsonschema.Reflector{DoNotReference: true, Anonymous: true}
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
	p, err := t.decode(args)
	if err != nil {
		return nil, err
	}
	return t.run(ctx, p)
}

func (t *definedTool[P]) decode(args json.RawMessage) (P, error) {
	var p P
	if len(args) > 0 {
		if err := json.Unmarshal(args, &p); err != nil {
			return p, fmt.Errorf("arguments do not fit %s: %w", t.spec.Name, err)
		}
	}
	return p, nil
}
