package redact

import (
	"encoding/json"
	"math"
)

// Args is a call's arguments as an event shows them: values of
// secret-named fields become "<redacted>", secrets found elsewhere in the
// arguments and well-known token formats are replaced, strings are cut at
// cut bytes and long arrays shortened. A failure gives one field,
// "redaction": "<redaction-failed>", never the raw values.
func Args(args map[string]any, cut int) (out map[string]any) {
	failed := map[string]any{"redaction": FailedText}
	defer func() {
		if recover() != nil {
			out = failed
		}
	}()
	v, err := newRedactor(Discover(args, nil)).sanitize(args, cut)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return failed
	}
	return m
}

// ExitCode is the exit code a command's structured result carries (the
// terminal's exit_code), and whether it carries one.
func ExitCode(structured map[string]any) (int, bool) {
	return exitCode(structured["exit_code"])
}

// exitCode is ExitCode of an exit_code member's value.
func exitCode(v any) (int, bool) {
	switch v := v.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<31 {
			return int(v), true
		}
	case int:
		return v, true
	case int64:
		return int(v), true
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n), true
		}
	}
	return 0, false
}

// CommandFailed: the result is a command's, and it exited non-zero (or
// was ended by a signal: exit_code -1). The call itself succeeded, but the
// operator's card shows it as failed, never as a success.
func CommandFailed(structured map[string]any) bool {
	code, ok := ExitCode(structured)
	return ok && code != 0
}
