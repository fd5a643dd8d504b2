package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
)

// values cover every kind Append writes itself and some it hands on.
var values = []any{
	nil, true, false, "", "plain", "q\" b\\ \b\f\n\r\t \x00\x1f \x7f <>& \u2028\u2029 \xff\xfe é 😀",
	0.0, -0.0, 1.0, 1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64,
	0, -7, int64(math.MinInt64), int32(5), uint(9), uint64(math.MaxUint64), uint32(3),
	float32(2.5), float32(1e-7), json.Number("12.5e3"), int8(1),
	map[string]any{"b": 1.0, "a": []any{"x", nil, map[string]any{}}, "\u2028<": "v", "é": false},
	map[string]any(nil), []any(nil), []any{}, []string(nil), []string{"<a>", ""}, map[string]string{"z": "1", "a": "<2>"},
	map[string]any{"status": "ok", "duration_ms": int64(3), "arg_keys": []string{"path"},
		"sizes":  map[string]any{"content_bytes": 86, "error_bytes": 0},
		"source": struct{ Kind, Path string }{"builtin", "/bin/<x>"}, "none": []string(nil)},
	map[string]any{"typed": time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), "raw": json.RawMessage(`{"x": [1, 2]}`), "bytes": []byte("hi")},
	map[string]any{"nested": map[string]any{"a": []any{map[string]any{"b": map[string]string{"z": "1", "a": "<2>"}}, nil, true}}},
}

func deep() map[string]any {
	d := map[string]any{}
	cur := d
	for range 100 {
		next := map[string]any{"k": "<v>"}
		cur["n"] = next
		cur = next
	}
	return d
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, v := range append(values, deep()) {
		for _, html := range []bool{true, false} {
			want, werr := encode(v, html)
			got, gerr := Append([]byte("x"), v, html)
			if gerr == nil {
				got = got[1:]
			}
			if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
				t.Errorf("Append(%#v, html %v) = %s, %v; encoding/json = %s, %v", v, html, got, gerr, want, werr)
			}
		}
		if want, werr := json.Marshal(v); werr == nil {
			if got, err := Marshal(v); err != nil || !bytes.Equal(got, want) {
				t.Errorf("Marshal(%#v) = %s, %v; json.Marshal = %s", v, got, err, want)
			}
		}
	}
}

func TestAppendRefusesWhatEncodingJSONRefuses(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for _, v := range []any{
		math.NaN(), math.Inf(1), []any{math.Inf(-1)}, json.Number("x"), make(chan int),
		map[string]any{"f": func() {}}, cyclic,
	} {
		for _, html := range []bool{true, false} {
			_, werr := encode(v, html)
			_, gerr := Append(nil, v, html)
			if werr == nil || gerr == nil || gerr.Error() != werr.Error() {
				t.Errorf("Append(%T, html %v) error %v, encoding/json error %v", v, html, gerr, werr)
			}
		}
	}
}

// FuzzAppend decodes arbitrary JSON, adds the Go types events and
// previews carry, and requires encoding/json's bytes with and without
// HTML escaping.
func FuzzAppend(f *testing.F) {
	f.Add(`{"a":"<b>","c":[1,"x",null,{"d":true}],"e":1e300}`, "s\u2028\xff<", int64(-5), 1e-7)
	f.Add(`[]`, "", int64(0), 0.0)
	f.Fuzz(func(t *testing.T, doc, s string, n int64, x float64) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			v = nil
		}
		d := map[string]any{"doc": v, "s" + s: s, "n": n, "x": x, "list": []string{s, s + "<"}, "m": map[string]string{s: s}}
		for _, val := range []any{v, s, x, d} {
			for _, html := range []bool{true, false} {
				want, werr := encode(val, html)
				got, gerr := Append(nil, val, html)
				if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
					t.Fatalf("Append(%#v, html %v) = %s, %v; encoding/json = %s, %v", val, html, got, gerr, want, werr)
				}
			}
		}
	})
}
