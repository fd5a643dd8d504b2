package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/sdk"
)

func TestTaskLine(t *testing.T) {
	rc := int32(3)
	for _, c := range []struct {
		name string
		p    taskPayload
		want string
	}{
		{"running", taskPayload{ID: "task_1", State: "running", Tool: "terminal", Summary: "make watch"},
			"task_1 running (terminal): make watch"},
		{"ended", taskPayload{ID: "task_1", State: "failed", Tool: "terminal", ReturnCode: &rc, ExitReason: "exited", Summary: "false"},
			"task_1 failed (terminal) return code 3 exit reason exited: false"},
		{"timed out", taskPayload{ID: "task_1", State: "running", Tool: "terminal", TimedOut: true},
			"task_1 running (terminal); still running at the timeout (not a failure): wait again or check later"},
	} {
		if got := taskLine(c.p); got != c.want {
			t.Errorf("%s: taskLine = %q, want %q", c.name, got, c.want)
		}
	}
}

// Without a host the task tools answer with a tool error, and refuse bad
// arguments before asking the host.
func TestTaskToolsWithoutAHost(t *testing.T) {
	tools := map[string]sdk.Tool{}
	for _, tool := range Tools() {
		tools[tool.Spec().Name] = tool
	}
	for _, c := range []struct{ tool, args, want string }{
		{"task_status", `{"task_id":"task_1"}`, "not available"},
		{"task_list", `{}`, "not available"},
		{"yield_until", `{"task_id":"task_1"}`, "not available"},
		{"yield_until", `{"task_id":"task_1","timeout_seconds":601}`, "timeout_seconds must be 0 to 600"},
		{"task_control", `{"task_id":"task_1","command":"cancel"}`, "not available"},
		{"task_control", `{"task_id":"task_1","command":"pause"}`, "the only command is cancel"},
		{"search_capabilities", `{"query":"jira"}`, "cannot be searched here"},
	} {
		res, err := tools[c.tool].Execute(&sdk.Context{Context: context.Background()}, json.RawMessage(c.args))
		if err != nil || !res.IsError || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s %s = %+v, %v; want a tool error with %q", c.tool, c.args, res, err, c.want)
		}
	}
}
