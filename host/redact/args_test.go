package redact

import (
	"strings"
	"testing"
)

// TestCardOfAFailedCommandIsAnError: a command that exited non-zero (or by
// a signal, -1) is a failed card although the call succeeded; exit 0 and a
// result without an exit code are not.
func TestCardOfAFailedCommandIsAnError(t *testing.T) {
	for _, tc := range []struct {
		structured map[string]any
		want       bool
	}{
		{map[string]any{"exit_code": float64(1)}, true},
		{map[string]any{"exit_code": float64(2)}, true},
		{map[string]any{"exit_code": float64(126)}, true},
		{map[string]any{"exit_code": float64(-1)}, true},
		{map[string]any{"exit_code": float64(0)}, false},
		{map[string]any{"task_id": "t1"}, false},
		{nil, false},
	} {
		v := Make(Raw{Tool: "terminal", Content: "x", Structured: tc.structured, Args: map[string]any{"command": "c"}}, nil)
		if v.Card.IsError != tc.want {
			t.Errorf("structured %v: card is_error %v, want %v", tc.structured, v.Card.IsError, tc.want)
		}
	}
}

// TestArgsRedactsLikeTheCard: secret-named fields and secret values found
// in the arguments are replaced; long strings are cut.
func TestArgsRedactsLikeTheCard(t *testing.T) {
	got := Args(map[string]any{"api_token": "tok-123456789", "command": "curl -H 'Authorization: Bearer abcdefghijklmnop' x", "text": strings.Repeat("a", 1000)}, 300)
	if got["api_token"] != RedactedField {
		t.Errorf("api_token = %v", got["api_token"])
	}
	if s, _ := got["command"].(string); strings.Contains(s, "abcdefghijklmnop") {
		t.Errorf("command keeps the bearer token: %q", s)
	}
	if s, _ := got["text"].(string); len(s) > 350 {
		t.Errorf("text not cut: %d bytes", len(s))
	}
}
