package sdk

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type schemaInner struct {
	Depth int `json:"depth"`
}

type schemaParams struct {
	Path    string      `json:"path" jsonschema_description:"File to read."`
	Mode    string      `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow,description=How hard to try"`
	Limit   int         `json:"limit,omitempty"`
	Inner   schemaInner `json:"inner"`
	Tags    []string    `json:"tags,omitempty"`
	Ignored string      `json:"-"`
}

// schemaDoc is the subset of JSON Schema the tests look at.
type schemaDoc struct {
	Schema               string                    `json:"$schema"`
	ID                   string                    `json:"$id"`
	Ref                  string                    `json:"$ref"`
	Defs                 map[string]any            `json:"$defs"`
	Type                 string                    `json:"type"`
	Required             []string                  `json:"required"`
	AdditionalProperties *bool                     `json:"additionalProperties"`
	Properties           map[string]propertySchema `json:"properties"`
}

type propertySchema struct {
	Type                 string   `json:"type"`
	Description          string   `json:"description"`
	Enum                 []string `json:"enum"`
	Required             []string `json:"required"`
	AdditionalProperties *bool    `json:"additionalProperties"`
}

func decodeSchema(t *testing.T, raw json.RawMessage) schemaDoc {
	t.Helper()
	var d schemaDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, raw)
	}
	return d
}

func TestSchemaOfStruct(t *testing.T) {
	raw := SchemaOf[schemaParams]()
	d := decodeSchema(t, raw)
	if d.Schema != "" || d.ID != "" || d.Ref != "" || d.Defs != nil {
		t.Errorf("schema carries $schema/$id/$ref/$defs; providers want a plain inline object:\n%s", raw)
	}
	if d.Type != "object" {
		t.Errorf("type = %q, want object", d.Type)
	}
	if d.AdditionalProperties == nil || *d.AdditionalProperties {
		t.Errorf("additionalProperties = %v, want false", d.AdditionalProperties)
	}
	if want := []string{"path", "inner"}; !reflect.DeepEqual(d.Required, want) {
		t.Errorf("required = %v, want %v (fields without omitempty)", d.Required, want)
	}
	if _, ok := d.Properties["Ignored"]; ok {
		t.Errorf(`a json:"-" field is in the schema`)
	}
	tests := []struct {
		prop, typ, desc string
		enum            []string
	}{
		{"path", "string", "File to read.", nil},
		{"mode", "string", "How hard to try", []string{"fast", "slow"}},
		{"limit", "integer", "", nil},
		{"inner", "object", "", nil},
		{"tags", "array", "", nil},
	}
	if len(d.Properties) != len(tests) {
		t.Errorf("properties = %v, want exactly %d", d.Properties, len(tests))
	}
	for _, tt := range tests {
		p, ok := d.Properties[tt.prop]
		if !ok {
			t.Errorf("property %s missing", tt.prop)
			continue
		}
		if p.Type != tt.typ || p.Description != tt.desc || !reflect.DeepEqual(p.Enum, tt.enum) {
			t.Errorf("property %s = %+v, want type %s, description %q, enum %v", tt.prop, p, tt.typ, tt.desc, tt.enum)
		}
	}
	inner := d.Properties["inner"]
	if !reflect.DeepEqual(inner.Required, []string{"depth"}) || inner.AdditionalProperties == nil || *inner.AdditionalProperties {
		t.Errorf("nested struct is not inlined strictly: %+v", inner)
	}
}

// An anonymous parameter struct, e.g. a tool without arguments written as
// struct{}, must get a schema rather than panic at Define.
func TestSchemaOfAnonymousStruct(t *testing.T) {
	tests := []struct {
		name     string
		raw      json.RawMessage
		required []string
	}{
		{"empty", SchemaOf[struct{}](), nil},
		{"inline fields", SchemaOf[struct {
			X int    `json:"x"`
			Y string `json:"y,omitempty"`
		}](), []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decodeSchema(t, tt.raw)
			if d.Type != "object" || d.AdditionalProperties == nil || *d.AdditionalProperties {
				t.Errorf("schema = %s, want a closed object", tt.raw)
			}
			if !reflect.DeepEqual(d.Required, tt.required) {
				t.Errorf("required = %v, want %v", d.Required, tt.required)
			}
		})
	}
}

func TestDefineDerivesOrKeepsSchema(t *testing.T) {
	run := func(*Context, schemaParams) (*Result, error) { return nil, nil }
	derived := Define(Spec{Name: "a", Description: "d", Effect: EffectRead}, run)
	if got, want := string(derived.Spec().Schema), string(SchemaOf[schemaParams]()); got != want {
		t.Errorf("Define schema = %s, want the derived %s", got, want)
	}
	own := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	kept := DefineChecked(Spec{Name: "b", Description: "d", Effect: EffectRead, Schema: own}, run, run)
	if string(kept.Spec().Schema) != string(own) {
		t.Errorf("DefineChecked replaced a hand-written schema: %s", kept.Spec().Schema)
	}
	if _, ok := derived.(Prechecker); ok {
		t.Error("a Define tool claims a precheck")
	}
	if _, ok := kept.(Prechecker); !ok {
		t.Error("a DefineChecked tool has no precheck")
	}
}

func TestDefineDecodesArguments(t *testing.T) {
	var got schemaParams
	tool := DefineChecked(Spec{Name: "t", Description: "d", Effect: EffectRead},
		func(_ *Context, p schemaParams) (*Result, error) { return Errorf("no", "refused %s", p.Path), nil },
		func(_ *Context, p schemaParams) (*Result, error) { got = p; return Text("ok"), nil })
	tests := []struct {
		name    string
		args    string
		want    schemaParams
		wantErr string
	}{
		{"fields", `{"path":"a.txt","limit":3,"inner":{"depth":2}}`, schemaParams{Path: "a.txt", Limit: 3, Inner: schemaInner{Depth: 2}}, ""},
		{"no arguments", ``, schemaParams{}, ""},
		{"wrong type", `{"path":7}`, schemaParams{}, "arguments do not fit t"},
		{"not JSON", `{`, schemaParams{}, "arguments do not fit t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = schemaParams{}
			res, err := tool.Execute(&Context{}, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Execute error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || res.Content != "ok" {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("params = %+v, want %+v", got, tt.want)
			}
		})
	}
	res, err := tool.(Prechecker).Precheck(&Context{}, json.RawMessage(`{"path":"x"}`))
	if err != nil || !res.IsError || res.ErrorCode != "no" || res.Content != "refused x" {
		t.Errorf("Precheck = %+v, %v; want the check's refusal", res, err)
	}
	if _, err := tool.(Prechecker).Precheck(&Context{}, json.RawMessage(`[]`)); err == nil {
		t.Error("Precheck accepted arguments that do not decode")
	}
}
