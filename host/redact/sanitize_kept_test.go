package redact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const keptToken = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

// keptCorpus: results with nothing to redact and results with each thing
// sanitize changes (a secret-named field, a token or a call's secret in a
// key, a value, a nested value, a number that is a secret), and types it
// converts or refuses.
func keptCorpus() []any {
	deep := any("leaf")
	for range 70 {
		deep = map[string]any{"a": deep}
	}
	return []any{
		nil, true, "plain", 3.0, "\xff bad utf-8",
		map[string]any{},
		map[string]any{"path": "small.txt", "content": "one\ntwo\n", "start_line": 1.0, "truncated": false, "n": nil},
		map[string]any{"list": []any{"a", 1.0, []any{true}, map[string]any{"x": "y"}}},
		map[string]any{"password": "not secret looking"},
		map[string]any{"nested": map[string]any{"api_key": "v"}},
		map[string]any{"note": "use " + keptToken},
		map[string]any{"list": []any{"ok", "x " + keptToken}},
		map[string]any{keptToken: "in a key"},
		map[string]any{"out": "the value hunter2hunter2 echoed"},
		map[string]any{"hunter2hunter2": 1.0},
		map[string]any{"count": 987654321.0}, map[string]any{"sizes": []any{1.0, 987654321.0}},
		map[string]any{"n": json.Number("987654321")},
		map[string]any{"n": json.Number("5")},
		map[string]any{"strs": []string{"a", "b"}},
		map[string]any{"env": map[string]string{"A": "b"}},
		map[string]any{"bad": struct{}{}},
		map[string]any{"bad": []any{1, struct{}{}}},
		map[string]any{"ints": []any{int64(7), uint32(9), float32(1.5)}},
		map[string]any{"invalid": "a\xffb"},
		deep,
	}
}

func keptRedactors() map[string]*redactor {
	return map[string]*redactor{
		"no secrets": newRedactor(nil),
		"secrets": newRedactor([]Secret{
			{Target: "arg", Value: "hunter2hunter2"}, {Target: "pin", Value: "987654321"},
		}),
	}
}

// TestSanitizeKeptIsSanitize: handing the value over gives exactly the
// copy sanitize makes, whatever is in play.
func TestSanitizeKeptIsSanitize(t *testing.T) {
	for name, r := range keptRedactors() {
		for i, v := range keptCorpus() {
			checkKept(t, name, i, r, v)
		}
	}
}

func checkKept(t *testing.T, name string, i int, r *redactor, v any) {
	t.Helper()
	want, werr := r.sanitize(v, 0)
	got, gerr := r.sanitizeKept(v)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
		t.Errorf("%s, case %d: sanitizeKept(%#v) = %#v, %v; sanitize gives %#v, %v", name, i, v, got, gerr, want, werr)
	}
}

// TestSanitizeKeptKeepsAnUnchangedResult: a result with nothing to redact
// is the view itself, without a copy; one with a token is copied (the
// caller's map keeps the token, the view does not).
func TestSanitizeKeptKeepsAnUnchangedResult(t *testing.T) {
	r := newRedactor(nil)
	m := map[string]any{"path": "small.txt", "content": "one\ntwo\n", "lines": 3.0, "list": []any{"a"}}
	got, err := r.sanitizeKept(m)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(got).Pointer() != reflect.ValueOf(m).Pointer() {
		t.Error("an unchanged result was copied")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = r.sanitizeKept(m) }); n != 0 {
		t.Errorf("an unchanged result costs %v allocations", n)
	}
	withToken := map[string]any{"path": "small.txt", "list": []any{"a", "key " + keptToken}}
	got, _ = r.sanitizeKept(withToken)
	if reflect.ValueOf(got).Pointer() == reflect.ValueOf(withToken).Pointer() {
		t.Fatal("a result with a token was handed over as it is")
	}
	if s := mustJSON(t, got); strings.Contains(s, keptToken) {
		t.Errorf("the token survived: %s", s)
	}
	if !strings.Contains(mustJSON(t, withToken), keptToken) {
		t.Error("the caller's map was changed")
	}
}

// TestStructuredSecretsAreRedactedInTheRecord: through Make, a structured
// result that echoes the call's secret, a token or a secret-named field
// is redacted in the record, with the secret in play from the arguments.
func TestStructuredSecretsAreRedactedInTheRecord(t *testing.T) {
	const secret = "s3cr3t-Value-0042"
	for _, st := range []map[string]any{
		{"out": "echo " + secret},
		{"deep": map[string]any{"list": []any{"x", secret}}},
		{"note": keptToken},
		{"token": "plainvalue"},
	} {
		v := Make(Raw{Tool: "t", Args: map[string]any{"password": secret}, Content: "ok", Structured: st}, nil)
		rec := mustJSON(t, v.Record()["structured"])
		for _, bad := range []string{secret, keptToken, "plainvalue"} {
			if strings.Contains(rec, bad) {
				t.Errorf("record's structured %s holds %q", rec, bad)
			}
		}
	}
}

func FuzzSanitizeKept(f *testing.F) {
	f.Add(`{"path":"small.txt","n":1}`, "hunter2hunter2")
	f.Add(`{"out":"hunter2hunter2","l":[1,"`+keptToken+`"]}`, "hunter2hunter2")
	f.Add(`{"password":"x"}`, "")
	f.Fuzz(func(t *testing.T, doc, secret string) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		var secrets []Secret
		if len(secret) >= 4 {
			secrets = []Secret{{Target: "arg", Value: secret}}
		}
		checkKept(t, "fuzz", 0, newRedactor(secrets), v)
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
