package jsonvalue

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		in, kind, err string
	}{
		{in: `{"a":1}`, kind: "object"},
		{in: ` [1, 2] `, kind: "array"},
		{in: `1.5`, kind: "number"},
		{in: `10`, kind: "integer"},
		{in: `1e2`, kind: "integer"},
		{in: `"x"`, kind: "string"},
		{in: `null`, kind: "null"},
		{in: `{} {}`, err: "invalid character after top-level value"},
		{in: `{"a":`, err: "unexpected EOF"},
		{in: ``, err: "EOF"},
	}
	for _, tt := range tests {
		v, err := Decode([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Decode(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || Kind(v) != tt.kind {
			t.Errorf("Decode(%q) = %v (%s), %v; want %s", tt.in, v, Kind(v), err, tt.kind)
		}
	}
}

func TestCheckNumber(t *testing.T) {
	tests := []struct {
		lit string
		ok  bool
	}{
		{"1", true}, {"-0.5e10", true}, {"1e400", true}, {"1e-400", true},
		{"1e401", false}, {"1E-401", false}, {"1e+401", false},
		{strings.Repeat("9", MaxNumberLen), true}, {strings.Repeat("9", MaxNumberLen+1), false},
	}
	for _, tt := range tests {
		if err := CheckNumber(tt.lit); (err == nil) != tt.ok {
			t.Errorf("CheckNumber(%.30s) = %v, want ok %v", tt.lit, err, tt.ok)
		}
	}
	if err := CheckNumbersIn(map[string]any{"a": []any{json.Number("1e999")}}); err == nil {
		t.Error("CheckNumbersIn missed a nested out-of-range number")
	}
}

func TestIsIntegral(t *testing.T) {
	for lit, want := range map[string]bool{"3": true, "3.0": true, "1e3": true, "1.5": false, "1e-1": false, "1e999": false} {
		if got := IsIntegral(json.Number(lit)); got != want {
			t.Errorf("IsIntegral(%s) = %v, want %v", lit, got, want)
		}
	}
}
