package argcheck

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// toolSchema is a realistic tool schema with every shape coercion handles.
const toolSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["path"],
  "properties": {
    "path":   {"type": "string", "minLength": 1},
    "limit":  {"type": "integer", "minimum": 1, "maximum": 1000},
    "ratio":  {"type": "number"},
    "flag":   {"type": "boolean"},
    "mode":   {"type": "string", "enum": ["fast", "slow"]},
    "paths":  {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    "nums":   {"type": "array", "items": {"type": "integer"}},
    "tags":   {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
    "opt":    {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    "multi":  {"type": ["integer", "boolean"]},
    "count":  {"$ref": "#/$defs/count"},
    "pos":    {"allOf": [{"type": "integer"}, {"minimum": 0}]},
    "one":    {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    "big":    {"type": "integer"},
    "obj":    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false},
    "edits":  {"type": "array", "items": {"type": "object", "properties": {"old": {"type": "string"}, "n": {"type": "integer"}}, "required": ["old"]}},
    "maybe":  {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
    "lists":  {"anyOf": [{"type": "array", "items": {}}, {"type": "array", "items": {"type": "integer"}}]}
  },
  "$defs": {"count": {"type": "integer"}}
}`

const openSchema = `{"type":"object","additionalProperties":{"type":"integer"}}`

func TestCoerce(t *testing.T) {
	schemas := map[string]*catalog.Schema{
		"tool": mustSchema(t, toolSchema),
		"open": mustSchema(t, openSchema),
		"none": mustSchema(t, ``),
	}
	tests := []struct {
		name   string
		schema string
		args   string
		want   string   // canonical JSON of the result
		errs   []string // every one must appear in the error
		path   string   // first problem's path, when checked
	}{
		// the document itself
		{name: "empty is {}", schema: "none", args: ``, want: `{}`},
		{name: "null is {}", schema: "none", args: ` null `, want: `{}`},
		{name: "whitespace is {}", schema: "none", args: " \n\t", want: `{}`},
		{name: "top-level array", schema: "none", args: `[1,2]`, errs: []string{"arguments must be a JSON object, got array"}},
		{name: "top-level string", schema: "none", args: `"path"`, errs: []string{"must be a JSON object, got string"}},
		{name: "trailing text", schema: "none", args: `{} {}`, errs: []string{"more text after it"}},
		{name: "truncated", schema: "none", args: `{"a":`, errs: []string{"not valid JSON", "ends early"}},
		{name: "single quotes", schema: "none", args: `{'a':1}`, errs: []string{"not valid JSON", "at byte"}},
		{name: "duplicate key", schema: "tool", args: `{"path":"a","path":"b"}`, errs: []string{"argument 'path' is given twice"}, path: "path"},
		{name: "nested duplicate key", schema: "tool", args: `{"path":"a","obj":{"a":1,"a":2}}`, errs: []string{"argument 'obj.a' is given twice"}},
		{name: "duplicate key in array element", schema: "tool", args: `{"path":"a","edits":[{"old":"x","old":"y"}]}`, errs: []string{"argument 'edits[0].old' is given twice"}},
		{name: "too deep", schema: "none", args: strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70), errs: []string{"nested more than 64 levels"}},
		{name: "number out of range", schema: "tool", args: `{"path":"a","ratio":1e999}`, errs: []string{"argument 'ratio': number 1e999 is out of range"}},

		// repairs
		{name: "string integer", schema: "tool", args: `{"path":"a","limit":"10"}`, want: `{"limit":10,"path":"a"}`},
		{name: "string integer with spaces", schema: "tool", args: `{"path":"a","limit":" 10 "}`, want: `{"limit":10,"path":"a"}`},
		{name: "string integral decimal", schema: "tool", args: `{"path":"a","limit":"10.0"}`, want: `{"limit":10,"path":"a"}`},
		{name: "integral decimal in plain digits", schema: "tool", args: `{"path":"a","limit":1.0e2}`, want: `{"limit":100,"path":"a"}`},
		{name: "exponent string through $ref", schema: "tool", args: `{"path":"a","count":"-5e0"}`, want: `{"count":-5,"path":"a"}`},
		{name: "number keeps its spelling", schema: "tool", args: `{"path":"a","ratio":1.0e2}`, want: `{"path":"a","ratio":1.0e2}`},
		{name: "string number", schema: "tool", args: `{"path":"a","ratio":"-0.5e1"}`, want: `{"path":"a","ratio":-0.5e1}`},
		{name: "string boolean", schema: "tool", args: `{"path":"a","flag":"true"}`, want: `{"flag":true,"path":"a"}`},
		{name: "string boolean any case", schema: "tool", args: `{"path":"a","flag":"False"}`, want: `{"flag":false,"path":"a"}`},
		{name: "JSON-encoded object", schema: "tool", args: `{"path":"a","obj":"{\"a\": \"4\"}"}`, want: `{"obj":{"a":4},"path":"a"}`},
		{name: "JSON-encoded array", schema: "tool", args: `{"path":"a","paths":"[\"x\",\"y\"]"}`, want: `{"path":"a","paths":["x","y"]}`},
		{name: "single value for array", schema: "tool", args: `{"path":"a","paths":"x.go"}`, want: `{"path":"a","paths":["x.go"]}`},
		{name: "single string number for integer array", schema: "tool", args: `{"path":"a","nums":"7"}`, want: `{"nums":[7],"path":"a"}`},
		{name: "items repaired", schema: "tool", args: `{"path":"a","nums":["1",2]}`, want: `{"nums":[1,2],"path":"a"}`},
		{name: "anyOf with null", schema: "tool", args: `{"path":"a","opt":"3"}`, want: `{"opt":3,"path":"a"}`},
		{name: "anyOf null kept", schema: "tool", args: `{"path":"a","opt":null}`, want: `{"opt":null,"path":"a"}`},
		{name: "optional list follows its branch", schema: "tool", args: `{"path":"a","maybe":["1"]}`, want: `{"maybe":[1],"path":"a"}`},
		{name: "through $ref", schema: "tool", args: `{"path":"a","count":"3"}`, want: `{"count":3,"path":"a"}`},
		{name: "through allOf", schema: "tool", args: `{"path":"a","pos":"3"}`, want: `{"path":"a","pos":3}`},
		{name: "nested object in array", schema: "tool", args: `{"path":"a","edits":[{"old":"x","n":"2"}]}`, want: `{"edits":[{"n":2,"old":"x"}],"path":"a"}`},
		{name: "additionalProperties schema", schema: "open", args: `{"x":"5"}`, want: `{"x":5}`},
		{name: "precision kept", schema: "tool", args: `{"path":"a","big":123456789012345678901234567890}`, want: `{"big":123456789012345678901234567890,"path":"a"}`},
		{name: "two branches fit: valid value untouched", schema: "tool", args: `{"path":"a","lists":["5"]}`, want: `{"lists":["5"],"path":"a"}`},
		{name: "valid value untouched", schema: "tool", args: `{"path":"10","either":"7"}`, want: `{"either":"7","path":"10"}`},

		// no repair: the model has to fix it
		{name: "word for integer", schema: "tool", args: `{"path":"a","limit":"ten"}`,
			errs: []string{`argument 'limit': expected integer, got string "ten"`}, path: "limit"},
		{name: "fraction for integer", schema: "tool", args: `{"path":"a","limit":"1.5"}`, errs: []string{`argument 'limit': expected integer, got string "1.5"`}},
		{name: "yes for boolean", schema: "tool", args: `{"path":"a","flag":"yes"}`, errs: []string{`argument 'flag': expected boolean, got string "yes"`}},
		{name: "number for boolean", schema: "tool", args: `{"path":"a","flag":1}`, errs: []string{`argument 'flag': expected boolean, got integer 1`}},
		{name: "number for string", schema: "tool", args: `{"path":5}`, errs: []string{`argument 'path': expected string, got integer 5`}},
		{name: "broken embedded JSON", schema: "tool", args: `{"path":"a","obj":"{a:1}"}`, errs: []string{`argument 'obj': expected object, got string "{a:1}"`}},
		{name: "embedded JSON of the wrong kind", schema: "tool", args: `{"path":"a","obj":"[1]"}`, errs: []string{`argument 'obj': expected object, got string "[1]"`}},
		{name: "wrap that would not validate", schema: "tool", args: `{"path":"a","paths":5}`, errs: []string{`argument 'paths': expected array, got integer 5`}},
		{name: "null is not a one-element array", schema: "tool", args: `{"path":"a","paths":null}`, errs: []string{`argument 'paths': expected array, got null`}},
		{name: "two candidate types", schema: "tool", args: `{"path":"a","multi":"5"}`, errs: []string{`argument 'multi': expected boolean or integer, got string "5"`}},
		{name: "anyOf without a repair", schema: "tool", args: `{"path":"a","either":true}`, errs: []string{`argument 'either': expected integer or string, got boolean true`}},
		{name: "anyOf with null rejects word", schema: "tool", args: `{"path":"a","opt":"z"}`, errs: []string{`argument 'opt': expected integer or null, got string "z"`}},
		{name: "oneOf matching twice", schema: "tool", args: `{"path":"a","one":3}`, errs: []string{"argument 'one' matches more than one allowed form"}},
		{name: "missing required", schema: "tool", args: `{}`, errs: []string{"missing required argument 'path'"}, path: "path"},
		{name: "missing nested required", schema: "tool", args: `{"path":"a","obj":{}}`, errs: []string{"missing required argument 'obj.a'"}},
		{name: "missing required in array item", schema: "tool", args: `{"path":"a","edits":[{"n":1}]}`, errs: []string{"missing required argument 'edits[0].old'"}},
		{name: "typo suggestion", schema: "tool", args: `{"pth":"a"}`, errs: []string{"unknown argument 'pth' (did you mean 'path'?)", "missing required argument 'path'"}},
		{name: "case suggestion", schema: "tool", args: `{"path":"a","Limit":3}`, errs: []string{"unknown argument 'Limit' (did you mean 'limit'?)"}},
		{name: "no suggestion for an argument already given", schema: "tool", args: `{"path":"a","paht":"b"}`, errs: []string{"unknown argument 'paht'; allowed: big, count"}},
		{name: "unknown far from everything", schema: "tool", args: `{"path":"a","zzzzzz":1}`, errs: []string{"unknown argument 'zzzzzz'; allowed:"}},
		{name: "unknown nested", schema: "tool", args: `{"path":"a","obj":{"b":2}}`, errs: []string{"unknown argument 'obj.b' (did you mean 'obj.a'?)", "missing required argument 'obj.a'"}},
		{name: "unknown nested, suggestion already given", schema: "tool", args: `{"path":"a","obj":{"a":1,"b":2}}`, errs: []string{"unknown argument 'obj.b'; allowed: a"}},
		{name: "several unknown named together", schema: "tool", args: `{"path":"a","qqqqqq":1,"wwwwww":2}`, errs: []string{"unknown arguments 'qqqqqq', 'wwwwww'; allowed: big,"}},
		{name: "long unknown key is shortened", schema: "tool", args: `{"path":"a","` + strings.Repeat("k", 500) + `":1}`, errs: []string{strings.Repeat("k", 64) + "…'"}},
		{name: "enum", schema: "tool", args: `{"path":"a","mode":"fats"}`, errs: []string{`argument 'mode': expected one of "fast", "slow", got string "fats"`}},
		{name: "minimum", schema: "tool", args: `{"path":"a","limit":0}`, errs: []string{"argument 'limit': must be at least 1, got 0"}},
		{name: "maximum after repair", schema: "tool", args: `{"path":"a","limit":"5000"}`, errs: []string{"argument 'limit': must be at most 1000, got 5000"}},
		{name: "min length", schema: "tool", args: `{"path":""}`, errs: []string{"argument 'path': must be at least 1 characters long, got 0"}},
		{name: "max items", schema: "tool", args: `{"path":"a","paths":["1","2","3","4"]}`, errs: []string{"argument 'paths': must have at most 3 items, got 4"}},
		{name: "unique items", schema: "tool", args: `{"path":"a","tags":["x","y","x"]}`, errs: []string{"argument 'tags': items [0] and [2] are equal"}},
		{name: "long value previewed", schema: "tool", args: `{"path":"a","limit":"` + strings.Repeat("9x", 100) + `"}`, errs: []string{`got string "9x9x`, `…`}},
		{name: "no arguments allowed", schema: "none", args: `{"x":1}`, want: `{"x":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schemas[tt.schema].Coerce(json.RawMessage(tt.args))
			if len(tt.errs) > 0 {
				var ae *catalog.ArgumentError
				if !errors.As(err, &ae) {
					t.Fatalf("Coerce(%s) error = %v (%T), want *ArgumentError; result %v", tt.args, err, err, got)
				}
				for _, want := range tt.errs {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q\ndoes not contain %q", err.Error(), want)
					}
				}
				if tt.path != "" && ae.Problems[0].Path != tt.path {
					t.Errorf("first problem path = %q, want %q", ae.Problems[0].Path, tt.path)
				}
				return
			}
			if err != nil {
				t.Fatalf("Coerce(%s): %v", tt.args, err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("Coerce(%s) = %s, want %s", tt.args, b, tt.want)
			}
		})
	}
}

func TestCoerceSizeLimit(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"content":{"type":"string"}}}`)
	envelope := len(`{"content":""}`)
	fits := `{"content":"` + strings.Repeat("x", MaxArgumentBytes-envelope) + `"}`
	if _, err := s.Coerce(json.RawMessage(fits)); err != nil {
		t.Fatalf("arguments of exactly %d bytes refused: %v", len(fits), err)
	}
	over := `{"content":"` + strings.Repeat("x", MaxArgumentBytes-envelope+1) + `"}`
	_, err := s.Coerce(json.RawMessage(over))
	var ae *catalog.ArgumentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "over the 256 KiB limit") {
		t.Fatalf("oversized arguments: error = %v, want the 256 KiB limit named", err)
	}
	// Refused before parsing: even invalid JSON gets the size message.
	_, err = s.Coerce(json.RawMessage(strings.Repeat("{", MaxArgumentBytes+1)))
	if err == nil || !strings.Contains(err.Error(), "256 KiB") {
		t.Fatalf("oversized invalid JSON: error = %v, want the size limit", err)
	}
}

func TestArgumentErrorIsShort(t *testing.T) {
	s := mustSchema(t, toolSchema)
	args := map[string]any{}
	for i := range 30 {
		args[strings.Repeat("u", i+1)] = i
	}
	b, _ := json.Marshal(args)
	_, err := s.Coerce(b)
	var ae *catalog.ArgumentError
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v, want *ArgumentError", err)
	}
	if len(ae.Problems) > maxCollectedProblems {
		t.Errorf("%d problems collected, bound is %d", len(ae.Problems), maxCollectedProblems)
	}
	if len(err.Error()) > 600 {
		t.Errorf("error not bounded: %s", err)
	}
}

func TestCoerceDoesNotShareState(t *testing.T) {
	s := mustSchema(t, toolSchema)
	a, err := s.Coerce(json.RawMessage(`{"path":"a","limit":"5"}`))
	if err != nil {
		t.Fatal(err)
	}
	a["limit"] = "changed"
	b, err := s.Coerce(json.RawMessage(`{"path":"a","limit":"5"}`))
	if err != nil {
		t.Fatal(err)
	}
	if b["limit"] != json.Number("5") {
		t.Fatalf("second call saw the first caller's change: %v", b["limit"])
	}
}
