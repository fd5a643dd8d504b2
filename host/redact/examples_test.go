package redact

import (
	"strings"
	"testing"
)

// TestPreviewExamples are the preview's cases random input rarely reaches,
// each with the text it must be: keys that redact to the same text (the
// later one, in key order, is kept), a value that cannot be redacted
// failing the preview even under a key that is not kept, a credential
// header's value, a string cut at 160 bytes, secret-named fields.
func TestPreviewExamples(t *testing.T) {
	tokA, tokB := "ghp_"+strings.Repeat("A", 36), "ghp_"+strings.Repeat("B", 36)
	given := []Secret{{Value: "1234", Source: "binding:PIN", Target: "PIN"}}
	for _, tc := range []struct {
		args    map[string]any
		want    string
		wantErr string
	}{
		{map[string]any{tokA: 1.0, tokB: "two"}, `{"<redacted:github_token>":"two"}`, ""},
		{map[string]any{tokA: "one", tokB: func() {}}, "", "value of type func() cannot be redacted"},
		{map[string]any{tokA: func() {}, tokB: "two"}, "", "value of type func() cannot be redacted"},
		{map[string]any{"headers": map[string]string{"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz", "X": "y"}},
			`{"headers":{"Authorization":"<redacted>","X":"y"}}`, ""},
		{map[string]any{"long": strings.Repeat("é", 200), "pin": 1234.0},
			`{"long":"` + strings.Repeat("é", 80) + `…(+240 bytes)","pin":"<redacted>"}`, ""},
		{map[string]any{"password": "hunter2-long", "list": []any{1.0, "x", nil}}, `{"list":[1,"x",null],"password":"<redacted>"}`, ""},
		{map[string]any{"a": map[string]any(nil), "b": []any(nil), "c": nil}, `{"a":{},"b":[],"c":null}`, ""},
	} {
		r := newRedactor(mergeSecrets(given, Discover(tc.args, nil)))
		got, err := r.preview(tc.args, 0)
		if got != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
			t.Errorf("preview(%v) = %q, %v; want %q, %q", tc.args, got, err, tc.want, tc.wantErr)
		}
	}
}
