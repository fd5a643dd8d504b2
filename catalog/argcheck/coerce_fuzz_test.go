package argcheck

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"demiurge.dev/catalog"
)

// FuzzCoerce feeds arbitrary bytes to Coerce as a model's arguments. It
// must never panic; a success must validate against the schema and be a
// fixed point (coercing its own JSON again changes nothing); a failure
// must be a short *ArgumentError.
func FuzzCoerce(f *testing.F) {
	seeds := []string{
		``, `null`, `{}`, `[]`, `"x"`, `1`, `{"path":"a"}`,
		`{"path":"a","limit":"10","flag":"true","paths":"x","opt":"3","obj":"{\"a\":\"4\"}"}`,
		`{"path":"a","nums":"7","maybe":["1"],"count":"3","pos":"3"}`,
		`{"path":"a","edits":[{"old":"x","n":"2"}],"edits":[]}`,
		`{"pth":"a","Limit":"ten","zz":1}`,
		`{"path":"a","paths":"[\"x\",\"y\"]","tags":["a","a"]}`,
		`{"path":"a","one":3,"either":true,"multi":"5"}`,
		`{"path":"a","ratio":1e999}`, `{"path":"a","big":123456789012345678901234567890}`,
		`{"path":"a","obj":"{\"a\":\"[1]\"}","paths":"[[\"x\"]]"}`,
		`{"a":{"a":{"a":{"a":{"a":[[[[[[]]]]]]}}}}}`,
		"{\"path\":\"\xff\xfe\"}", `{"path":"a"} trailing`, `{"path":"a",`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	schema := mustSchema(f, toolSchema)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := schema.Coerce(data)
		if err != nil {
			var ae *catalog.ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("error is %T, want *ArgumentError: %v", err, err)
			}
			if msg := err.Error(); msg == "" || len(msg) > 4096 {
				t.Fatalf("error message length %d: %q", len(msg), msg)
			}
			return
		}
		if out == nil {
			t.Fatal("nil result without error")
		}
		if verr := validate(schema, out); verr != nil {
			t.Fatalf("result does not validate: %v\ninput %q", verr, data)
		}
		again, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
		out2, err := schema.Coerce(again)
		if err != nil {
			t.Fatalf("coercing the result again failed: %v\nresult %s", err, again)
		}
		if !reflect.DeepEqual(out, out2) {
			t.Fatalf("not a fixed point:\n%v\n%v", out, out2)
		}
	})
}
