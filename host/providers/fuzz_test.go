package providers

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzServerMessage: any error body a server sends yields a message
// without panicking, and scrub bounds what is quoted and removes the key.
func FuzzServerMessage(f *testing.F) {
	for _, s := range []string{`{"error":{"message":"m","type":"t"}}`, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`[{"error":{"code":429,"message":"q","status":"RESOURCE_EXHAUSTED"}}]`, `{"error":"plain"}`, `<html>`, ``, `[`, `{"error":{"code":{}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		msg, _ := serverMessage([]byte(body))
		out := scrub(msg+testKey+msg, testKey)
		if strings.Contains(out, testKey) || len(out) > maxQuoted+len("…") {
			t.Fatalf("scrub(%q) = %q", msg, out)
		}
	})
}

// FuzzRetryAfter: any Retry-After or retry-after-ms header gives a
// non-negative wait or none.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "1.5", "-1", "1e300", "NaN", "+Inf", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", ""} {
		f.Add(s, s)
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, after, afterMs string) {
		h := http.Header{}
		h.Set("Retry-After", after)
		h.Set("Retry-After-Ms", afterMs)
		if d, ok := retryAfter(h, now); ok && d < 0 {
			t.Fatalf("wait %v for %q / %q", d, after, afterMs)
		}
	})
}

// FuzzParseModel: any --model value parses or is refused, never panics,
// and a parsed one names a known provider and a model.
func FuzzParseModel(f *testing.F) {
	for _, s := range []string{"openai:gpt-5.1", "openai-compatible:qwen3:8b", ":", "x", "opnai:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, n, err := ParseModel(s)
		if err == nil && (checkProvider(p) != nil || n == "") {
			t.Fatalf("ParseModel(%q) = %q %q", s, p, n)
		}
	})
}
