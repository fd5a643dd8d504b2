package argcheck

import (
	"encoding/json"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/catalog/internal/jsonvalue"
)

// simpleSchemas are schemas of the simple kind, each with values it takes
// and values it refuses.
var simpleSchemas = []string{
	`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
	`{"type":"object","additionalProperties":false,"required":["a","b"],"properties":{` +
		`"a":{"type":"string","minLength":2,"maxLength":3,"description":"d"},` +
		`"b":{"type":["integer","null"]},"c":{"type":"number"},"d":{"type":"boolean","default":true},` +
		`"e":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer"}},"additionalProperties":false}},` +
		`"f":{},"g":{"type":"array"},"h":{"type":"object","additionalProperties":true}}}`,
	`{"type":"object","properties":{}}`,
	`{"type":"object","title":"t","examples":[{}],"$comment":"c","properties":{"n":{"type":"integer","deprecated":true,"readOnly":false,"writeOnly":false}}}`,
	// bounds written as integers (read_file's offset and limit)
	`{"type":"object","properties":{"n":{"type":"integer","minimum":-3,"maximum":10},"b":{"type":["number","string"],"minimum":2}}}`,
	`{"type":"object","properties":{"n":{"type":"number","maximum":-2147483647}},"additionalProperties":false}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":1}}}`,
	readFileToolSchema,
}

// readFileToolSchema is the coding plugin's read_file schema as the SDK
// derives it (fsops.ReadParams): the call the dispatch benchmark makes.
const readFileToolSchema = `{"properties":{"path":{"type":"string","description":"File to read, relative to the workspace."},` +
	`"offset":{"type":"integer","maximum":2147483647,"minimum":-2147483647,"description":"First line to return."},` +
	`"limit":{"type":"integer","maximum":10000,"minimum":0,"description":"Maximum number of lines to return."}},` +
	`"additionalProperties":false,"type":"object","required":["path"]}`

// notSimple are schemas with a keyword or form compileSimple leaves to the
// validator.
var notSimple = []string{
	`{"type":"object","properties":{"a":{"type":"string","enum":["x"]}}}`,
	`{"type":"object","properties":{"a":{"type":"number","minimum":1.5}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","maximum":1e3}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":1234567890123456789}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":1}}}`,
	`{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`,
	`{"type":"object","properties":{"a":true}}`,
	`{"type":"object","additionalProperties":{"type":"integer"}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`,
	`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"maxItems":2}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
	`{"type":"object","unknownKeyword":1}`,
	toolSchema,
}

func checker(t testing.TB, raw string) *Checker {
	t.Helper()
	doc, err := jsonvalue.Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(doc)
	if err != nil {
		t.Fatalf("Compile(%s): %v", raw, err)
	}
	return c.(*Checker)
}

func TestSimpleSchemaForms(t *testing.T) {
	for _, raw := range simpleSchemas {
		if checker(t, raw).simple == nil {
			t.Errorf("%s has no simple form", raw)
		}
	}
	for _, raw := range notSimple {
		if checker(t, raw).simple != nil {
			t.Errorf("%.80s was given a simple form", raw)
		}
	}
}

// simpleValues are argument documents tried against every simple schema.
var simpleValues = []string{
	`{"text":"hello"}`, `{}`, `{"text":1}`, `{"text":null}`, `{"other":"x"}`,
	`{"a":"xy","b":1}`, `{"a":"xyz","b":null,"c":1.5,"d":false}`, `{"a":"é😀","b":-0}`, `{"a":"x","b":1}`,
	`{"a":"wxyz","b":1}`, `{"a":"xy","b":1.0}`, `{"a":"xy","b":1e2}`, `{"a":"xy","b":1.5}`, `{"a":"xy","b":"1"}`,
	`{"a":"xy","b":1,"z":0}`, `{"a":"xy","b":1,"e":[{"x":1},{"x":2}]}`, `{"a":"xy","b":1,"e":[{"x":1.5}]}`,
	`{"a":"xy","b":1,"e":[{"y":1}]}`, `{"a":"xy","b":1,"e":{}}`, `{"a":"xy","b":1,"f":[null,{"q":1}],"g":[1,"x"],"h":{"k":[]}}`,
	`{"a":"xy","b":1,"g":{}}`, `{"a":"xy","b":1,"c":"1"}`, `{"a":"xy","b":1,"d":"true"}`, `{"n":12345678901234567890}`,
	`{"n":-3}`, `{"n":3.0}`, `{"n":"3"}`, `{"a":"xy","b":1,"h":1}`,
	`{"n":-4}`, `{"n":10}`, `{"n":11}`, `{"n":-0}`, `{"n":1e1}`, `{"n":9.5}`, `{"n":-2147483647}`, `{"n":-2147483648}`,
	`{"b":2}`, `{"b":1}`, `{"b":"1"}`, `{"b":1.99}`, `{"a":0}`, `{"a":1}`, `{"n":-99999999999999999999}`,
	`{"path":"a.go"}`, `{"path":"a.go","offset":-5,"limit":100}`, `{"path":"a.go","limit":10001}`, `{"path":"a.go","limit":-1}`,
	`{"path":"a.go","offset":2147483648}`, `{"offset":1}`,
}

// TestSimpleAgreesWithValidator: on every simple schema, a value the
// simple form accepts is one the validator accepts; and it does accept
// the common valid ones, so the fast path is taken.
func TestSimpleAgreesWithValidator(t *testing.T) {
	accepted := 0
	for _, raw := range simpleSchemas {
		c := checker(t, raw)
		for _, doc := range simpleValues {
			v, err := jsonvalue.Decode([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			fast, valid := c.simple.satisfied(v), c.compiled.Validate(v) == nil
			if fast && !valid {
				t.Errorf("schema %.60s: %s is accepted by the simple form, refused by the validator", raw, doc)
			}
			if fast {
				accepted++
			}
		}
	}
	for _, tc := range []struct{ schema, doc string }{
		{simpleSchemas[0], `{"text":"hello"}`},
		{simpleSchemas[1], `{"a":"xy","b":1,"e":[{"x":1},{"x":2}]}`},
		{simpleSchemas[1], `{"a":"é😀","b":null,"c":1.5,"d":false,"f":[null,{"q":1}],"g":[1,"x"],"h":{"k":[]}}`},
		{simpleSchemas[3], `{"n":-3}`},
		{simpleSchemas[4], `{"n":-3,"b":"x"}`},
		{simpleSchemas[4], `{"n":10,"b":2}`},
		{readFileToolSchema, `{"path":"small.txt"}`},
		{readFileToolSchema, `{"path":"a.go","offset":-5,"limit":10000}`},
	} {
		v, _ := jsonvalue.Decode([]byte(tc.doc))
		if !checker(t, tc.schema).simple.satisfied(v) {
			t.Errorf("schema %.60s: the valid %s is left to the validator", tc.schema, tc.doc)
		}
	}
	if accepted == 0 {
		t.Fatal("the simple form accepted nothing")
	}
}

// FuzzSimpleSchema: whatever value the simple form of a schema accepts,
// the validator accepts, and Coerce gives what it gave without the fast
// path.
func FuzzSimpleSchema(f *testing.F) {
	for i := range simpleSchemas {
		for _, v := range simpleValues {
			f.Add(uint8(i), []byte(v))
		}
	}
	checkers := make([]*Checker, len(simpleSchemas))
	for i, raw := range simpleSchemas {
		checkers[i] = checker(f, raw)
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		c := checkers[int(which)%len(checkers)]
		v, err := jsonvalue.Decode(doc)
		if err != nil {
			return
		}
		if c.simple.satisfied(v) && c.compiled.Validate(v) != nil {
			t.Fatalf("%s is accepted by the simple form, refused by the validator: %v", doc, c.compiled.Validate(v))
		}
		slow := &Checker{compiled: c.compiled}
		got, gerr := c.Coerce(doc)
		want, werr := slow.Coerce(doc)
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("Coerce(%s) error %v, without the simple form %v", doc, gerr, werr)
		}
		if g, _ := json.Marshal(got); string(g) != mustJSON(t, want) {
			t.Fatalf("Coerce(%s) = %s, without the simple form %s", doc, g, mustJSON(t, want))
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var _ catalog.ArgChecker = (*Checker)(nil)

// FuzzSimpleNeedsNoRepair: arguments the simple form accepts as they are
// come out of the repairs unchanged, which is why Coerce skips them.
func FuzzSimpleNeedsNoRepair(f *testing.F) {
	for i := range simpleSchemas {
		for _, v := range simpleValues {
			f.Add(uint8(i), []byte(v))
		}
	}
	checkers := make([]*Checker, len(simpleSchemas))
	for i, raw := range simpleSchemas {
		checkers[i] = checker(f, raw)
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		c := checkers[int(which)%len(checkers)]
		m, err := decodeArguments(doc)
		if err != nil || !c.simple.satisfied(m) {
			return
		}
		before := mustJSON(t, m)
		repaired := coerceValue(deepCopy(m), expandView(c.compiled), 0)
		if after := mustJSON(t, repaired); after != before {
			t.Fatalf("%s was accepted as it is, but repaired to %s", before, after)
		}
	})
}
