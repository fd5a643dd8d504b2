package websearch

import (
	"net/http"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		status     int
		retryAfter string
		code, want string
	}{
		{401, "", "unauthorized", "Example Search refused the API key bound by the host (HTTP 401: bad). Retrying will not help; tell the operator to check EXAMPLE_API_KEY."},
		{403, "", "unauthorized", "(HTTP 403: bad)"},
		{429, "7", "rate_limited", "Retry after 7 seconds"},
		{429, "soon", "rate_limited", "Retry after a little while"},
		{502, "", "provider_unavailable", "Example Search is unavailable (HTTP 502)."},
		{400, "", "invalid_request", "rejected the search (HTTP 400: bad)"},
		{422, "", "invalid_request", "(HTTP 422: bad)"},
		{418, "", "unexpected_status", "answered with HTTP 418"},
	} {
		res := example.Classify(tc.status, http.Header{"Retry-After": {tc.retryAfter}}, "bad")
		if !res.IsError || res.ErrorCode != tc.code || !strings.Contains(res.Content, tc.want) {
			t.Errorf("HTTP %d: got %q %q; want %q containing %q", tc.status, res.ErrorCode, res.Content, tc.code, tc.want)
		}
	}
}

func TestDetailTakesTheKeyOut(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"token " + testKey + " revoked", "token [redacted:EXAMPLE_API_KEY] revoked"},
		// Entities spelling the key are unescaped, then taken out again.
		{"key " + strings.Replace(testKey, "-", "&#45;", 1), "key [redacted:EXAMPLE_API_KEY]"},
		{strings.Repeat("x", 300), strings.Repeat("x", 199) + "…"},
	} {
		if got := example.Detail(tc.in, testKey); got != tc.want {
			t.Errorf("Detail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
