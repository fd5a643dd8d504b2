package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// A result its decoder called plain is kept without a walk only in a call
// without secrets: a value bound to the call (or found in its arguments)
// is still replaced in it.
func TestStructuredPlainStillHidesKnownSecrets(t *testing.T) {
	const value = "hunter2-hunter2-hunter2"
	structured := map[string]any{"out": []any{"said " + value}, "n": 3.0}
	if SecretName("out") || SecretName("n") || !PlainJSONText(`{"out":["said `+value+`"],"n":3}`) {
		t.Fatal("the case's keys and strings are not plain; it tests nothing")
	}
	raw := Raw{Tool: "t", Content: "c", Structured: structured, StructuredPlain: true}
	v := Make(raw, []Secret{{Source: "binding", Target: "PW", Value: value}})
	b, err := json.Marshal(v.Record())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), value) {
		t.Fatalf("a bound value survived in a plain structured result: %s", b)
	}
}

// PlainJSONText and SecretName say no to what the views would change.
func TestPlainJSONTextAndSecretName(t *testing.T) {
	if !anchorsHoldNoEscaped {
		t.Fatal("an anchor holds a character JSON escapes: PlainJSONText says no to everything")
	}
	for _, s := range []string{`{"a":"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}`, `{"k":"AKIAIOSFODNN7EXAMPLE"}`, "{\"a\":\"bad \xff\"}"} {
		if PlainJSONText(s) {
			t.Errorf("PlainJSONText(%q) = true", s)
		}
	}
	for _, k := range []string{"password", "api_key", "sessionCookie"} {
		if !SecretName(k) {
			t.Errorf("SecretName(%q) = false", k)
		}
	}
	for _, s := range []string{`{}`, `{"path":"small.txt","content":"one\ntwo"}`, `{"a":"é😀"}`} {
		if !PlainJSONText(s) {
			t.Errorf("PlainJSONText(%q) = false", s)
		}
	}
}
