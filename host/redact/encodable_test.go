package redact

import (
	"encoding/json"
	"math"
	"testing"
)

// checkEncodable must agree with json.Marshal on every value a view holds.
func TestCheckEncodableAgreesWithMarshal(t *testing.T) {
	for _, v := range []any{
		nil, true, "s", "\xff", 3, int64(-1), uint8(7), 1.5, float32(2.5), json.Number("12"),
		json.Number("1e3"), json.Number("x"), json.Number(""), math.NaN(), math.Inf(1), float32(math.Inf(-1)),
		[]string{"a"}, map[string]string{"a": "b"}, []map[string]string{{"a": "b"}},
		map[string]any{"a": []any{1.0, map[string]any{"b": math.NaN()}}},
		map[string]any{"a": []any{1.0, "x", nil}}, []any{json.Number("--1")},
		make(chan int), func() {}, struct{ A int }{1}, map[int]string{1: "a"},
	} {
		_, merr := json.Marshal(v)
		if err := checkEncodable(v); (err == nil) != (merr == nil) {
			t.Errorf("checkEncodable(%#v) = %v, json.Marshal says %v", v, err, merr)
		}
	}
}
