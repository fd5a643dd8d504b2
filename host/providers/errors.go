package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/shared/textclip"
)

// Error is a failed model step. Its text names the provider and what
// failed, quotes the server's message where there is one, and never holds
// the key. It unwraps only to a context error, so that a caller can tell a
// cancelled step (errors.Is(err, context.Canceled)) without reaching the
// SDK's error, which holds the request.
type Error struct {
	Provider string
	// Status is the HTTP status of the last try, 0 when there was none.
	Status int
	// Tries is how many requests were made.
	Tries int
	msg   string
	cause error
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.cause }

// maxQuoted bounds the server text an error quotes.
const maxQuoted = 1000

// failure is one try's outcome, before it becomes an Error.
type failure struct {
	what      string // "rate limited (429)", "overloaded", "the connection dropped mid-stream"
	detail    string // the server's message or the cause, unscrubbed
	status    int
	retryable bool
	cause     error // a context error, when that is what happened
}

// errStreamCut is a stream that ended before its terminal event.
var errStreamCut = errors.New("the stream ended before the reply was complete")

// inBandError is an error event inside a started stream.
type inBandError struct{ typ, message string }

func (e *inBandError) Error() string { return e.typ + ": " + e.message }

// serverMessage is the human part of an error body in any of the
// providers' shapes ({"error":{"message"}}, {"error":"..."},
// {"message"}, [{"error":{...}}] from Gemini), else the body itself.
func serverMessage(body []byte) (msg, typ string) {
	var shapes struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
	}
	b := body
	if trimmed := strings.TrimSpace(string(b)); strings.HasPrefix(trimmed, "[") {
		var arr []json.RawMessage
		if json.Unmarshal(b, &arr) == nil && len(arr) > 0 {
			b = arr[0]
		}
	}
	if json.Unmarshal(b, &shapes) == nil {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Status  string `json:"status"`
			Code    any    `json:"code"`
		}
		var s string
		switch {
		case json.Unmarshal(shapes.Error, &inner) == nil && inner.Message != "":
			return inner.Message, firstNonEmpty(inner.Type, inner.Status, fmt.Sprint(inner.Code))
		case json.Unmarshal(shapes.Error, &s) == nil && s != "":
			return s, shapes.Type
		case shapes.Message != "":
			return shapes.Message, shapes.Type
		}
	}
	return strings.TrimSpace(string(body)), ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" && s != "<nil>" {
			return s
		}
	}
	return ""
}

// scrub removes the key from text and bounds its length.
func scrub(text, key string) string {
	if key != "" {
		text = strings.ReplaceAll(text, key, "[REDACTED]")
	}
	return textclip.Clip(text, maxQuoted)
}

// contextFailure is the failure of a step whose context ended.
func contextFailure(ctx context.Context) *failure {
	if err := ctx.Err(); err != nil {
		what := "cancelled"
		if errors.Is(err, context.DeadlineExceeded) {
			what = "timed out"
		}
		return &failure{what: what, cause: err}
	}
	return nil
}
