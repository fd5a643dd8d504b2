package redact

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// referenceRaws are results of every shape Make handles: no secrets,
// secrets in each place discovery looks, every optional field, error
// results, numbers, nesting, invalid UTF-8 and values that cannot be
// redacted or encoded.
var referenceRaws = []Raw{
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

func TestMakeMatchesReference(t *testing.T) {
	bound := []Secret{{Value: "bound-secret-value", Source: "binding:X", Target: "X"}}
	for i, raw := range referenceRaws {
		for _, given := range [][]Secret{nil, bound} {
			got, want := Make(raw, given), refMake(raw, given)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("raw %d (%d given): views differ from the reference\n got %#v\nwant %#v", i, len(given), got, want)
			}
		}
	}
}

func TestDiscoverMatchesReference(t *testing.T) {
	for i, raw := range referenceRaws {
		bound := map[string]string{"B": "bound-value-1", "A": "bound-value-2"}
		if got, want := Discover(raw.Args, bound), refDiscover(raw.Args, bound); !reflect.DeepEqual(got, want) {
			t.Errorf("raw %d: Discover = %v, reference %v", i, got, want)
		}
		for _, text := range []string{raw.Content, raw.ErrorText} {
			if got, want := DiscoverText("error", text), refDiscoverText("error", text); !reflect.DeepEqual(got, want) {
				t.Errorf("raw %d: DiscoverText(%.40q) = %v, reference %v", i, text, got, want)
			}
		}
	}
}

// FuzzMakeMatchesReference: for any arguments, output, error and
// structured result, Make's views are those of the reference.
func FuzzMakeMatchesReference(f *testing.F) {
	f.Add(`{"text":"hello"}`, "hello", "", `{"a":1.5}`, false, true)
	f.Add(`{"url":"https://a:b@c/?token=d","password":"p","n":[1,2e30,-0.0]}`, "\xff\xfe <&>", "x=y", `{"ok":true}`, true, false)
	f.Add(`{"a":[{"name":"Authorization","value":"Basic dXNlcjpwYXNz"}]}`, "Authorization: Basic dXNlcjpwYXNz", "", "", false, false)
	f.Add(`{"command":"mysql -u root -psecretpw app","x":"\u2028"}`, "-psecretpw", "err -psecretpw", `[1]`, true, true)
	f.Fuzz(func(t *testing.T, argsJSON, content, errText, structuredJSON string, isError, withModel bool) {
		var args map[string]any
		if json.Unmarshal([]byte(argsJSON), &args) != nil {
			args = map[string]any{"raw": argsJSON}
		}
		var structured map[string]any
		_ = json.Unmarshal([]byte(structuredJSON), &structured)
		raw := Raw{Tool: "t" + errText, CallID: content, Args: args, IsError: isError, Content: content,
			ModelOutput: content + "!", HasModelOutput: withModel, ErrorText: errText, Structured: structured}
		given := Discover(map[string]any{"k": content}, map[string]string{"B": errText})
		got, want := Make(raw, given), refMake(raw, given)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("views differ from the reference\n got %#v\nwant %#v", got, want)
		}
	})
}

// FuzzTextFastPaths: the anchor scan finds what it found before, and
// validUTF8 is strings.ToValidUTF8 with U+FFFD.
func FuzzTextFastPaths(f *testing.F) {
	for _, s := range []string{"", "a", "AKIA", "xx ghp_ SECRET Bearer eyJ", "\xff\xfe ok \uFFFD é", "SG.", "hooks.slack.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		gf, ga := candidates(s)
		wf, wa := refCandidates(s)
		if gf != wf || ga != wa {
			t.Fatalf("candidates(%q) = %v %v, before %v %v", s, gf, ga, wf, wa)
		}
		if got, want := validUTF8(s), strings.ToValidUTF8(s, "\uFFFD"); got != want {
			t.Fatalf("validUTF8(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestPreviewMatchesReference covers what random inputs rarely reach:
// keys that redact to the same text (the later one is kept, and a value
// that cannot be sanitized fails the preview wherever it is), cut
// strings and arrays, nil containers and numbers that are secrets.
func TestPreviewMatchesReference(t *testing.T) {
	tokA, tokB := "ghp_"+strings.Repeat("A", 36), "ghp_"+strings.Repeat("B", 36)
	long := make([]any, 25)
	for i := range long {
		long[i] = float64(i)
	}
	cases := []map[string]any{
		{tokA: 1.0, tokB: "two"},
		{tokA: func() {}, tokB: "two"},
		{tokA: "one", tokB: func() {}},
		{tokA: math.NaN(), tokB: "two"},
		{tokA: "one", tokB: math.NaN()},
		{"password_" + tokA: func() {}, "password_" + tokB: "x"},
		{"password_" + tokA: "x", tokB: func() {}},
		{"a": map[string]any(nil), "b": []any(nil), "c": nil, "d": map[string]string(nil), "e": []string{}},
		{"long": strings.Repeat("é", 200), "many": long, "few": long[:20], "pin": 1234.0, "n": json.Number("5"), "f32": float32(1.5)},
		{"nested": map[string]any{tokA: map[string]any{"token": "t-1234", tokB: []any{tokA, 1e21}}}},
		{"headers": map[string]string{"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz", "X": "y"}},
		nil,
	}
	given := []Secret{{Value: "1234", Source: "binding:PIN", Target: "PIN"}}
	for i, args := range cases {
		r := newRedactor(mergeSecrets(given, Discover(args, nil)))
		got, gerr := r.preview(args, 0)
		want, werr := refPreview(newRedactor(mergeSecrets(given, Discover(args, nil))), args, 0)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Errorf("case %d: preview = %q, %v; reference %q, %v", i, got, gerr, want, werr)
		}
	}
}

// FuzzPreviewMatchesReference: for any JSON arguments and a bound secret,
// the preview is the reference's.
func FuzzPreviewMatchesReference(f *testing.F) {
	f.Add(`{"a":[1,"x",null,{"password":"p"}],"b":1e300,"ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA":1}`, "x")
	f.Add(`{}`, "1e300")
	f.Fuzz(func(t *testing.T, doc, secret string) {
		var args map[string]any
		if json.Unmarshal([]byte(doc), &args) != nil {
			return
		}
		secrets := mergeSecrets([]Secret{{Value: secret, Source: "binding:S", Target: "S"}}, Discover(args, nil))
		got, gerr := newRedactor(secrets).preview(args, 0)
		want, werr := refPreview(newRedactor(secrets), args, 0)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Fatalf("preview = %q, %v; reference %q, %v", got, gerr, want, werr)
		}
	})
}
