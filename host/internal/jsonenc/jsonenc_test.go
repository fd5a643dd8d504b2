package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// encode is encoding/json's answer, with or without HTML escaping.
func encode(v any, escapeHTML bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func check(t *testing.T, v any) {
	t.Helper()
	for _, html := range []bool{false, true} {
		want, err := encode(v, html)
		got, ok := Scalar([]byte("x"), v, html)
		if ok != (err == nil && isScalar(v)) {
			t.Fatalf("Scalar(%#v, %v) ok = %v (encoding/json error %v)", v, html, ok, err)
		}
		if ok && !bytes.Equal(got[1:], want) {
			t.Fatalf("Scalar(%#v, %v) = %s, encoding/json %s", v, html, got[1:], want)
		}
	}
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, bool, string, float64, int, int64, int32, uint, uint64, uint32:
		return true
	}
	return false
}

func TestScalarMatchesEncodingJSON(t *testing.T) {
	for _, v := range []any{
		nil, true, false, "", "plain", "q\" b\\ \b\f\n\r\t \x00\x1f \x7f <>& \u2028\u2029 \xff\xfe é 😀",
		0.0, math.Copysign(0, -1), 1.5, 1e21, 1e20, 1e-6, 1e-7, -2.5e-9, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(-1), 7, int64(math.MinInt64), int32(-7), uint(3), uint64(math.MaxUint64), uint32(7),
		int8(1), float32(2.5), []int{1},
	} {
		check(t, v)
	}
}

func FuzzScalar(f *testing.F) {
	f.Add("a<b>&\u2028\xff", 1.25e-7, int64(-3))
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		check(t, s)
		check(t, x)
		check(t, n)
	})
}
