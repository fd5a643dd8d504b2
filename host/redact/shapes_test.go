package redact

import (
	shared "demiurge.dev/shared/redact"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// shapes are results of every shape Make handles: no secrets,
// secrets in each place discovery looks, every optional field, error
// results, numbers, nesting, invalid UTF-8 and values that cannot be
// redacted or encoded.
var shapes = []Raw{
	{Tool: "echo__echo", CallID: "bench", Args: map[string]any{"text": "hello"}, Content: "hello"},
	{Tool: "t"},
	{Tool: "t", Args: map[string]any{}},
	{Tool: "read_file", CallID: "c7", Args: map[string]any{"path": "notes.txt", "token": "tok-12345678", "offset": 1.0, "limit": 200},
		Content: "hello world from the file", Structured: map[string]any{"size": 25, "f": 1e21, "g": 1e-7, "h": -0.0, "i": 123456789.125}},
	{Tool: "terminal", CallID: "c1", Args: map[string]any{"command": "deploy --token tk-123456789 https://u:pw-12345@h/x", "env": map[string]string{"A": "b=c"}},
		Content: "deploying with tk-123456789 and pw-12345", ModelOutput: "m pw-12345", HasModelOutput: true,
		DisplayOutput: "d tk-123456789", HasDisplayOutput: true},
	{Tool: "fetch", IsError: true, ErrorText: "GET https://x/?api_key=k-9999999 failed: 401"},
	{Tool: "fetch", IsError: true, Content: "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123"},
	{Tool: "t\xff<b>", CallID: "\u2028&", Args: map[string]any{"k\xfe": "v\x00\x1f\"\\ \u2029 é", "n": nil, "b": true,
		"list": []any{"a", 1.5, nil, false, map[string]any{"x": []any{}}}, "strs": []string{"x", "y"}},
		Content: "ok \xff\xfe bytes <&>"},
	{Tool: "t", Args: map[string]any{"note": "use ghp_16C7e42F292c6912E7710c838347Ae178B4a", "long": strings.Repeat("é", 200),
		"many": make([]any, 30)}, Content: strings.Repeat("line -x\n", 40)},
	{Tool: "t", Args: map[string]any{"headers": []any{"Accept: */*", "Authorization: token s3cr3t-value-1"}},
		Structured: map[string]any{"stdout": "s3cr3t-value-1", "password": "p", "n": json.Number("12"), "m": map[string]string{"a": "b"}}},
	{Tool: "t", Args: map[string]any{"f": func() {}}, Content: "x"},
	{Tool: "t", Args: map[string]any{"n": math.NaN()}, Content: "x"},
	{Tool: "t", Content: "x", Structured: map[string]any{"n": math.Inf(-1)}},
	{Tool: "t", Content: "x", Structured: map[string]any{"ch": make(chan int)}},
	{Tool: "t", Content: "x", Structured: map[string]any{"n": json.Number("not a number")}},
	{Tool: "t", Args: map[string]any{"n": json.Number("1e5"), "f32": float32(2.5), "u": uint64(math.MaxUint64), "i": int32(-7)}},
	{Tool: "t", Args: map[string]any{
		"headers": []any{map[string]any{"Name": "Authorization", "VALUE": "Bearer tok-123456789abc"}},
		"h2":      map[string]any{"key": "X-Api-Key", "Value": "k-99999999"},
		"h3":      map[string]any{"value": "only-a-value"},
		"h4":      map[string]any{"header": "Cookie", "vAlUe": "sid=abcdef123456"},
		"h5":      map[string]any{"name": "token", "välue": "not-a-value-key", "value": 12345678.0},
	}, Content: "tok-123456789abc k-99999999 abcdef123456"},
}

// unencodable are the shapes whose views cannot be made: a value that is
// neither redactable nor encodable fails the whole result, never a view.
func unencodable(raw Raw) bool {
	for _, v := range raw.Args {
		switch v := v.(type) {
		case func():
			return true
		case float64:
			if math.IsNaN(v) {
				return true
			}
		}
	}
	for _, v := range raw.Structured {
		switch v := v.(type) {
		case float64:
			if math.IsInf(v, 0) {
				return true
			}
		case chan int:
			return true
		case json.Number:
			if _, err := v.Float64(); err != nil {
				return true
			}
		}
	}
	return false
}

// knownSecrets are the values that must never appear in a view of raw:
// the given ones and whatever discovery finds in its arguments and error,
// at least shared.MinSecretLen long.
func knownSecrets(raw Raw, given []Secret) []string {
	var out []string
	for _, s := range mergeSecrets(given, Discover(raw.Args, nil), DiscoverText("error", raw.ErrorText)) {
		if len(s.Value) >= shared.MinSecretLen {
			out = append(out, s.Value)
		}
	}
	return out
}

// TestShapeProperties holds Make to its promises on every shape, with and
// without a bound secret: a result fails as a whole exactly when a value
// cannot be redacted or encoded; otherwise every view serialises, and no
// known secret, bound or discovered, survives in any of them.
func TestShapeProperties(t *testing.T) {
	bound := []Secret{{Value: "bound-secret-value", Source: "binding:X", Target: "X"}}
	for i, raw := range shapes {
		for _, given := range [][]Secret{nil, bound} {
			raw := raw
			if len(given) > 0 {
				raw.Content += " and bound-secret-value"
			}
			v := Make(raw, given)
			if v.Failed != unencodable(raw) {
				t.Errorf("shape %d (%d given): Failed = %v", i, len(given), v.Failed)
				continue
			}
			if v.Failed {
				if v.Model.String() != FailedText || v.Card.Body != FailedText {
					t.Errorf("shape %d: a failed result shows %q / %q", i, v.Model.String(), v.Card.Body)
				}
				continue
			}
			text := allText(t, v)
			for _, s := range knownSecrets(raw, given) {
				if strings.Contains(text, s) {
					t.Errorf("shape %d (%d given): secret %q survives in\n%s", i, len(given), s, text)
				}
			}
		}
	}
}
