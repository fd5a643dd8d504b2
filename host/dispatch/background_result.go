package dispatch

import (
	"encoding/json"
	"strings"

	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// terminalResult is the part of the terminal contract's structured result
// that a task record keeps.
type terminalResult struct {
	ExitCode   *int            `json:"exit_code"`
	ExitReason string          `json:"exit_reason"`
	Signal     string          `json:"signal"`
	Stdout     *terminalStream `json:"stdout"`
	Stderr     *terminalStream `json:"stderr"`
}

type terminalStream struct {
	Tail      string `json:"tail"`
	Bytes     int64  `json:"bytes"`
	Chars     int64  `json:"chars"`
	Truncated bool   `json:"truncated"`
}

// taskOutcome reads the final result: exit code and reason, and the tool's
// own stream statistics, whose tails are redacted like the output.
func taskOutcome(res *toolsetv1.ToolResult, secrets []redact.Secret) runtime.TaskOutcome {
	out := runtime.TaskOutcome{Failed: res.GetIsError(), Result: redactText(res.GetContent(), secrets)}
	if n := len(out.Result); n > maxTaskResult {
		out.Result = "…" + strings.ToValidUTF8(out.Result[n-maxTaskResult:], "")
	}
	var tr terminalResult
	if len(res.GetStructured()) == 0 || json.Unmarshal(res.GetStructured(), &tr) != nil {
		return out
	}
	out.ReturnCode = tr.ExitCode
	if tr.Signal != "" {
		// A command a signal ended (a cancelled task's, TERM) keeps it as
		// a shell would report it, not as the terminal's -1.
		if code, ok := signalReturnCode(tr.Signal); ok {
			out.ReturnCode = &code
		}
	}
	out.ExitReason = printableShort(redactText(tr.ExitReason, secrets), 64)
	if tr.ExitCode != nil && *tr.ExitCode != 0 {
		out.Failed = true
	}
	for name, s := range map[string]*terminalStream{"stdout": tr.Stdout, "stderr": tr.Stderr} {
		if s == nil {
			continue
		}
		if out.Streams == nil {
			out.Streams = map[string]runtime.StreamStats{}
		}
		tail := redactText(s.Tail, secrets)
		if r := []rune(tail); len(r) > runtime.TailChars {
			tail = string(r[len(r)-runtime.TailChars:])
		}
		out.Streams[name] = runtime.StreamStats{Tail: tail, Bytes: s.Bytes, Chars: s.Chars, Truncated: s.Truncated}
	}
	return out
}
