package manifest

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseDefaults(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "~\n"} {
		m, err := Parse([]byte(src), "tool.yaml")
		if err != nil {
			t.Fatalf("Parse(%q) = %v", src, err)
		}
		if !reflect.DeepEqual(*m, Defaults()) {
			t.Errorf("Parse(%q) = %+v, want the defaults %+v", src, *m, Defaults())
		}
	}
	d := Defaults()
	if d.Entrypoint.String() != "module:execute" || d.Risk != "medium" || d.Capability != "" ||
		d.ApprovalPolicy != "prompt" || d.DisplayPolicy != "summary" || d.ModelOutputPolicy != "content" ||
		string(d.InputSchema) != "{}" || d.Description != "" || len(d.Capabilities) != 0 {
		t.Errorf("defaults differ from the Tools reference: %+v", d)
	}
}

func TestParseEveryField(t *testing.T) {
	src := `entrypoint: note:run
description: |
  Append a note to the project log.
input_schema:
  type: object
  properties:
    text: {type: string, maxLength: 200}
    count: {type: integer, minimum: 1}
  required: [text]
  additionalProperties: false
risk: low
capability: tool.call:project_note
approval_policy: auto
display_policy: full
model_output_policy: content
capabilities: [fs.write, network.fetch]
`
	m, err := Parse([]byte(src), "tool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{
		Entrypoint:  Entrypoint{Kind: KindPython, Module: "note", Function: "run"},
		Description: "Append a note to the project log.\n",
		Risk:        "low", Capability: "tool.call:project_note", ApprovalPolicy: "auto",
		DisplayPolicy: "full", ModelOutputPolicy: "content",
		Capabilities: []string{"fs.write", "network.fetch"},
	}
	var schema map[string]any
	if err := json.Unmarshal(m.InputSchema, &schema); err != nil {
		t.Fatalf("input_schema is not JSON: %v", err)
	}
	if schema["type"] != "object" || schema["required"].([]any)[0] != "text" {
		t.Errorf("input_schema = %s", m.InputSchema)
	}
	if !strings.Contains(string(m.InputSchema), `"minimum":1`) {
		t.Errorf("integers are not kept as JSON integers: %s", m.InputSchema)
	}
	m.InputSchema = nil
	if !reflect.DeepEqual(*m, want) {
		t.Errorf("Parse = %+v\nwant %+v", *m, want)
	}
	null, err := Parse([]byte("capability: null\ncapabilities: []\n"), "tool.yaml")
	if err != nil || null.Capability != "" || len(null.Capabilities) != 0 {
		t.Errorf("null capability: %+v, %v", null, err)
	}
	ex, err := Parse([]byte("entrypoint: exec:bin/tool\n"), "tool.yaml")
	if err != nil || ex.Entrypoint != (Entrypoint{Kind: KindExec, Path: "bin/tool"}) {
		t.Errorf("exec entrypoint: %+v, %v", ex, err)
	}
}

// Every refusal names the file, the line and the field.
func TestParseRefusals(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown field", "description: x\ndescripton: y\n", `tool.yaml:2:1: descripton: unknown field "descripton" (did you mean "description"?)`},
		{"slot-only timeout_seconds", "risk: low\ntimeout_seconds: 5\n", "tool.yaml:2:1: timeout_seconds: is a slot-only field"},
		{"slot-only failure_policy", "failure_policy: retry\n", "tool.yaml:1:1: failure_policy: is a slot-only field"},
		{"slot-only history_policy", "history_policy: keep\n", "tool.yaml:1:1: history_policy: is a slot-only field"},
		{"slot-only default_placement", "default_placement: serial\n", "tool.yaml:1:1: default_placement: is a slot-only field"},
		{"duplicate", "risk: low\nrisk: high\n", "tool.yaml:2:1: risk: duplicate field (first at line 1)"},
		{"bad risk", "risk: lowest\n", `tool.yaml:1:7: risk: "lowest" is not one of low, medium, high`},
		{"bad approval", "approval_policy: maybe\n", "tool.yaml:1:18: approval_policy:"},
		{"bad display", "display_policy: loud\n", "tool.yaml:1:17: display_policy:"},
		{"bad model output", "model_output_policy: tail\n", "tool.yaml:1:22: model_output_policy:"},
		{"number as string", "description: 12\n", "want a string, got the number 12"},
		{"bad capability", "capability: 'fs read'\n", "tool.yaml:1:13: capability:"},
		{"capability list item", "capabilities: [fs.read, 7]\n", "tool.yaml:1:25: capabilities[1]:"},
		{"duplicate capability", "capabilities: [fs.read, fs.read]\n", "duplicate capability"},
		{"capabilities not a list", "capabilities: fs.read\n", "want a list"},
		{"bad entrypoint", "entrypoint: module.execute\n", "tool.yaml:1:13: entrypoint: want \"module:function\""},
		{"entrypoint not identifiers", "entrypoint: my-mod:run\n", "must be Python identifiers"},
		{"exec escapes", "entrypoint: exec:../x\n", "leaves the tool directory"},
		{"exec absolute", "entrypoint: exec:/bin/sh\n", "leaves the tool directory"},
		{"schema not a mapping", "input_schema: [1]\n", "tool.yaml:1:15: input_schema: want a mapping"},
		{"schema not object", "input_schema: {type: string}\n", "input_schema.type: must be \"object\""},
		{"schema invalid", "input_schema:\n  type: object\n  properties:\n    a: {type: 12}\n", "input_schema: is not a valid JSON Schema"},
		{"schema bad minimum", "input_schema:\n  type: object\n  properties:\n    a: {type: integer, minimum: lots}\n", "is not a valid JSON Schema"},
		{"schema remote ref", "input_schema:\n  type: object\n  properties:\n    a: {$ref: 'https://example.org/s.json'}\n", "only references inside the schema itself"},
		{"schema infinity", "input_schema:\n  type: object\n  maximum: .inf\n", "is not a JSON number"},
		{"alias", "description: &d x\nmodel_output_policy: *d\n", "aliases are not allowed"},
		{"merge key", "<<: {risk: low}\n", "merge keys"},
		{"not a mapping", "- a\n", "want a mapping with the fields"},
		{"two documents", "risk: low\n---\nrisk: high\n", "second YAML document"},
		{"syntax", "risk: [low\n", "invalid YAML"},
		{"non-string key", "1: x\n", "field names must be plain names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.src), "tool.yaml")
			if err == nil {
				t.Fatalf("Parse accepted %q: %+v", tt.src, m)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant it to contain %q", err, tt.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("error is %T, want *Error", err)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	_, err := Parse(make([]byte, MaxFileSize+1), "tool.yaml")
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a huge tool.yaml: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "risk: low\n", "timeout_seconds: 3\n", "entrypoint: exec:bin/x\n",
		"input_schema:\n  type: object\n  properties:\n    a: {type: string}\n",
		"input_schema: {type: object, properties: {a: {$ref: '#/$defs/x'}}, $defs: {x: {type: string}}}\n",
		"capabilities: [fs.read]\ncapability: tool.call:x\n", "a: &x [*x]\n", "- [[[[[]]]]]\n",
		"input_schema: {maximum: 1e400}\n", "description: \"\\u0000\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data, "tool.yaml")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			return
		}
		if !json.Valid(m.InputSchema) {
			t.Fatalf("accepted schema is not JSON: %q", m.InputSchema)
		}
		if err := compileSchema(m.InputSchema); err != nil {
			t.Fatalf("accepted schema does not compile: %v", err)
		}
		for _, v := range [][2]string{{m.Risk, "risk"}, {m.ApprovalPolicy, "approval"}, {m.DisplayPolicy, "display"}} {
			if v[0] == "" {
				t.Fatalf("%s is empty after parsing", v[1])
			}
		}
	})
}

// TestAManifestHidesNothingFromTheOperator: tool.yaml and slot.yaml are
// files an agent may write into its own core and the operator reviews;
// what goes from them to the model (a description, a schema) may hold no
// character that a terminal shows as nothing (Unicode tag characters) or
// as other text (bidi controls), raw or spelled as a YAML escape, in a
// value or a key, at any depth. The error names the line.
func TestAManifestHidesNothingFromTheOperator(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"raw tag characters", "description: \"note\U000E0049\U000E0047\U000E004E\"\n"},
		{"escaped tag characters", "description: \"note \\U000E0049\\U000E0047\"\n"},
		{"bidi override", "risk: low\ndescription: \"abc\u202Edef\"\n"},
		{"isolate in a schema", "input_schema:\n  type: object\n  properties:\n    text: {type: string, description: \"x\\u2066y\"}\n"},
		{"in a key", "input_schema:\n  type: object\n  properties:\n    \"t\\U000E0041\": {type: string}\n"},
	} {
		for _, parse := range []func([]byte, string) (*Manifest, error){Parse, parseSlot} {
			_, err := parse([]byte(tc.src), "tool.yaml")
			var e *Error
			if err == nil || !strings.Contains(err.Error(), "invisible character") {
				t.Errorf("%s: %v", tc.name, err)
			} else if errors.As(err, &e) && e.Line == 0 {
				t.Errorf("%s: no line in %v", tc.name, err)
			}
		}
	}
	// Zero-width joiners and other scripts are not hidden text.
	if _, err := Parse([]byte("description: \"👩\u200D💻 日本語 عربى\"\n"), "tool.yaml"); err != nil {
		t.Errorf("an emoji sequence refused: %v", err)
	}
}
