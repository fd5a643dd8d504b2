package dispatch

import (
	"context"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// TestTaskRecordCarriesTheEnforcedMode: a background terminal command's
// task record names the sandbox mode it ran under, as `tasks show`
// prints it: the session's mode, network when approved for it, off when
// the host configured no sandbox.
func TestTaskRecordCarriesTheEnforcedMode(t *testing.T) {
	h := newHarness(t)
	helper := buildSandboxHelper(t)
	for _, c := range []struct {
		name string
		cfg  sandboxing.Config
		args string
		want string
	}{
		{"workspace-write", sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper}, `{"command":"echo hi","background":true}`, "workspace-write"},
		{"network", sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper}, `{"command":"echo hi","background":true,"network":true}`, "network"},
		{"none configured", sandboxing.Config{}, `{"command":"echo hi","background":true}`, "off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
			tasks, _, err := runtime.NewTaskManager(context.Background(), h.store)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(tasks.Close)
			turn.Background = &Background{Tasks: tasks}
			turn.Sandbox = c.cfg
			out := turn.Call(context.Background(), ToolCall{ID: "bg-" + c.name, Name: "terminal", Args: []byte(c.args)})
			id := taskIDRe.FindString(out.Views.Model)
			if !out.OK() || id == "" {
				t.Fatalf("%s %s", out.Status, out.Views.Model)
			}
			task, timedOut, err := tasks.Wait(context.Background(), testScope, id, 20*time.Second)
			if err != nil || timedOut {
				t.Fatalf("wait: %v, timed out %v", err, timedOut)
			}
			if task.State != runtime.TaskSucceeded || task.Sandbox != c.want {
				t.Fatalf("task state %s sandbox %q, want succeeded under %q: %+v", task.State, task.Sandbox, c.want, task)
			}
		})
	}
}
