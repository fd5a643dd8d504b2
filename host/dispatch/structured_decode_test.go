package dispatch

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"demiurge.dev/host/redact"
)

// jsonObject is the definition fastObject must meet: encoding/json's
// Unmarshal into an interface, a JSON object or nothing.
func jsonObject(b []byte) map[string]any {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}

// structuredCorpus is valid and invalid input around every branch of the
// shortcut: escapes, UTF-8, control bytes, the number grammar, nesting,
// whitespace JSON does not allow, trailing data.
var structuredCorpus = []string{
	`{}`, ` {"a":1} `, "{\t\"a\"\r\n:\n1}", `{"a":"b\"c\\d\/e\bf\fg\nh\ri\tj"}`, `{"a":"\u00e9"}`, `{"a":"\x"}`,
	`{"a":"` + "\xff" + `"}`, `{"a":"` + "\xc3" + `"}`, `{"` + "\xff" + `":1}`, `{"a":"é😀"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\x7f\"}",
	`{"a":0}`, `{"a":-0}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":1E-2}`,
	`{"a":+1}`, `{"a":Infinity}`, `{"a":NaN}`, `{"a":1e400}`, `{"a":-1e400}`, `{"a":1e-400}`, `{"a":0x10}`,
	`{"a":123456789012345678901234567890}`, `{"a":1_000}`, `{"a":[]}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":{},}`,
	`{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":falsey}`, `{a:1}`,
	`{"a":1}}`, `{"a":1} {}`, `{"a":1`, `{"a":"`, `{"a":"\`, `{"a":[1,2`, `[{}]`, `"{}"`, `null`, ``, ` `,
	"\xef\xbb\xbf{}", "{\v}", "{\u00a0}", `{"a":1,"a":"two"}`, `{"":""}`, `{"a":{"b":{"c":[true,false,null]}}}`,
	strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70),
	strings.Repeat(`{"a":[`, 40) + `1` + strings.Repeat(`]}`, 40),
	// past encoding/json's nesting bound (10,000): it refuses, so must the shortcut
	strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001),
	`{"exit_code":0}`, `{"exit_code":2,"exit_code":-1}`, `{"exit_code":"2"}`, `{"exit_code":[1],"a":{"exit_code":3}}`,
	`{"exit_code":1e400}`, `{"exit_code":12345.5,"b":"x"}`, `{"a\n":1,"a\u000a":2}`, `{"a\n":1,"a\n":2,"b":"\n\t"}`,
	`{"a":"x\n` + "\xff" + `"}`, `{"a":"` + "\xff" + `\nx"}`, `{"a":"` + "\xc3" + `\n` + "\xa9" + `"}`, `{"a":"` + "\xc3\xa9" + `\n` + "\xc3\xa9" + `"}`,
	`{"k01":1,"k02":2,"k03":3,"k04":4,"k05":5,"k06":6,"k07":7,"k08":8,"k09":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k01":17,"k18":{"k18":1}}`,
	`{"path":"small.txt","content":"one\ntwo\nthree\n","start_line":1,"end_line":3,"lines_returned":3,"total_lines":3,"total_lines_known":true,"bytes_scanned":14,"file_size":14,"truncated":false}`,
}

func TestFastObjectIsEncodingJSON(t *testing.T) {
	for _, in := range structuredCorpus {
		checkFastObject(t, []byte(in))
	}
}

// The shortcut takes read_file's result; otherwise it would be dead weight.
func TestFastObjectTakesAReadResult(t *testing.T) {
	in := structuredCorpus[len(structuredCorpus)-1]
	if _, ok := fastObject([]byte(in)); !ok {
		t.Fatalf("read_file's structured result left the shortcut: %s", in)
	}
}

func FuzzStructuredObject(f *testing.F) {
	for _, in := range structuredCorpus {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFastObject(t, b) })
}

func checkFastObject(t *testing.T, b []byte) {
	t.Helper()
	want := jsonObject(b)
	if got, ok := fastObject(b); ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("fastObject(%q) = %#v, encoding/json gives %#v", b, got, want)
	}
	got, plain := structuredObject(b)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("structuredObject(%q) = %#v, encoding/json gives %#v", b, got, want)
	}
	checkScanObject(t, b)
	if plain {
		checkPlainIsUnchanged(t, b, got)
	}
}

// checkScanObject: scanObject, which makes no values, says of b what
// fastObjectPlain's object says (redact.Deferred's facts), and the
// deferred result decodes to that object.
func checkScanObject(t *testing.T, b []byte) {
	t.Helper()
	m, plain, ok := fastObjectPlain(b)
	s, sok := scanObject(b)
	if sok != ok {
		t.Fatalf("scanObject(%q) ok = %v, fastObjectPlain %v", b, sok, ok)
	}
	if !ok {
		return
	}
	if s.keys != len(m) || s.plain != plain || !reflect.DeepEqual(s.exitCode, m["exit_code"]) || s.text != string(b) {
		t.Fatalf("scanObject(%q) = %d keys, plain %v, exit_code %#v; the object has %d, %v, %#v", b, s.keys, s.plain, s.exitCode, len(m), plain, m["exit_code"])
	}
	if got := decodeDeferred(s.text); !reflect.DeepEqual(got, m) {
		t.Fatalf("decodeDeferred(%q) = %#v, want %#v", b, got, m)
	}
}

// checkPlainIsUnchanged: a result the decoder calls plain gets the same
// views from redact.Make whether Make is told so (and keeps it as it is)
// or walks it itself, in a call without secrets.
func checkPlainIsUnchanged(t *testing.T, b []byte, m map[string]any) {
	t.Helper()
	told := redact.Make(redact.Raw{Tool: "t", Content: "c", Structured: m, StructuredPlain: true}, nil)
	walked := redact.Make(redact.Raw{Tool: "t", Content: "c", Structured: m}, nil)
	if !reflect.DeepEqual(told.Record(), walked.Record()) || !reflect.DeepEqual(told.Event.Map(), walked.Event.Map()) {
		t.Fatalf("%q was decoded as plain, but redaction changes it: kept %#v, walked %#v", b, told.Record(), walked.Record())
	}
}

// TestStructuredPlainIsUnchanged: what redaction would change (a secret
// name at any depth, a token in a key or a string, in an object or an
// array) is never called plain; the rest of read_file's shape is.
func TestStructuredPlainIsUnchanged(t *testing.T) {
	for _, tc := range []struct {
		in    string
		plain bool
	}{
		{structuredCorpus[len(structuredCorpus)-1], true},
		{`{"a":{"b":[1,"two",null,true]}}`, true},
		{`{"password":"x"}`, false},
		{`{"a":{"api_key":1}}`, false},
		{`{"a":[{"token":"x"}]}`, false},
		{`{"a":"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}`, false},
		{`{"a":["x","AKIAIOSFODNN7EXAMPLE"]}`, false},
		{`{"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB":1}`, false},
		{`{"a":"Bearer abcdefghijklmnopqrstuvwxyz0123"}`, false},
	} {
		m, plain := structuredObject([]byte(tc.in))
		if m == nil {
			t.Fatalf("%s did not decode", tc.in)
		}
		if plain != tc.plain {
			t.Errorf("structuredObject(%s) plain = %v, want %v", tc.in, plain, tc.plain)
		}
		checkFastObject(t, []byte(tc.in))
		if !tc.plain {
			// Redaction must change these: else the case tests nothing.
			v := redact.Make(redact.Raw{Tool: "t", Structured: m}, nil)
			if reflect.DeepEqual(v.Structured(), any(m)) {
				t.Errorf("%s: redaction leaves it as it is; not a case for the check", tc.in)
			}
		}
	}
}

// BenchmarkStructuredObject: read_file's structured result through the
// shortcut and through encoding/json, in one run.
func BenchmarkStructuredObject(b *testing.B) {
	in := []byte(structuredCorpus[len(structuredCorpus)-1])
	b.Run("shortcut", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_, _ = structuredObject(in)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			jsonObject(in)
		}
	})
}

// The decoded strings are parts of one copy of the input, never of the
// input itself: the result's bytes belong to the protobuf message, and a
// view must not change when they are reused or overwritten.
func TestFastObjectOwnsItsStrings(t *testing.T) {
	in := []byte(`{"path":"small.txt","content":"one\ntwo","n":12}`)
	got, ok := fastObject(in)
	if !ok {
		t.Fatal("left the shortcut")
	}
	want := jsonObject(in)
	for i := range in {
		in[i] = 'X'
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the input was overwritten: %#v, want %#v", got, want)
	}
}

// TestBoxFloatKeepsTheNumber: the shared small whole numbers are the
// numbers encoding/json gives, bit for bit (-0 keeps its sign, a fraction
// is not rounded to a shared one).
func TestBoxFloatKeepsTheNumber(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, f := range []float64{0, negZero, 1, 3, 14, 1023, 1023.5, 1024, 0.5, 0.999999, -1, -0.5, 1e300, math.SmallestNonzeroFloat64} {
		got, ok := boxFloat(f).(float64)
		if !ok || math.Float64bits(got) != math.Float64bits(f) {
			t.Errorf("boxFloat(%v) = %v (bits %x), want bits %x", f, got, math.Float64bits(got), math.Float64bits(f))
		}
	}
	in := `{"a":[0,-0,1,1023,1024,0.5,-1,1e2,100.0,2.50,1E3,1023.0000001]}`
	fast, ok := fastObject([]byte(in))
	if !ok {
		t.Fatalf("fastObject refused %s", in)
	}
	want := jsonObject([]byte(in))["a"].([]any)
	for i, v := range fast["a"].([]any) {
		if math.Float64bits(v.(float64)) != math.Float64bits(want[i].(float64)) {
			t.Errorf("element %d: %v, encoding/json gives %v", i, v, want[i])
		}
	}
}
