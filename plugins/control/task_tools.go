package main

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/toolsetv1"
)

// The background-task tools: thin clients of the host, which owns the
// tasks and answers only for the calling turn's principal and session.

//go:embed task_status.md
var taskStatusDoc string

//go:embed task_control.md
var taskControlDoc string

//go:embed yield_until.md
var yieldUntilDoc string

//go:embed task_list.md
var taskListDoc string

// Bounds of yield_until, in seconds.
const (
	DefaultYieldSeconds = 30
	MaxYieldSeconds     = 600
)

type taskIDParams struct {
	TaskID string `json:"task_id" jsonschema:"minLength=1,maxLength=64" jsonschema_description:"The task id a background call returned (task_...)."`
}

type taskControlParams struct {
	TaskID  string `json:"task_id" jsonschema:"minLength=1,maxLength=64" jsonschema_description:"The task id a background call returned (task_...)."`
	Command string `json:"command" jsonschema:"enum=cancel" jsonschema_description:"What to do with the task; only cancel."`
}

type yieldUntilParams struct {
	TaskID         string `json:"task_id" jsonschema:"minLength=1,maxLength=64" jsonschema_description:"The task id a background call returned (task_...)."`
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty" jsonschema:"minimum=0,maximum=600" jsonschema_description:"Seconds to wait at most (default 30, at most 600)."`
}

type taskListParams struct{}

// taskPayload is a task as the model sees it: the host's bounded view.
type taskPayload struct {
	ID         string `json:"id"`
	State      string `json:"state"`
	Tool       string `json:"tool"`
	Summary    string `json:"summary,omitempty"`
	ReturnCode *int32 `json:"return_code,omitempty"`
	ExitReason string `json:"exit_reason,omitempty"`
	Created    string `json:"created,omitempty"`
	Started    string `json:"started,omitempty"`
	Ended      string `json:"ended,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	// Answer is a child agent's answer (delegate_task tasks only).
	Answer string `json:"answer,omitempty"`
}

func payloadOf(v *toolsetv1.TaskView) taskPayload {
	return taskPayload{
		ID: v.GetId(), State: v.GetState(), Tool: v.GetTool(), Summary: v.GetSummary(),
		ReturnCode: v.ReturnCode, ExitReason: v.GetExitReason(),
		Created: v.GetCreated(), Started: v.GetStarted(), Ended: v.GetEnded(),
		Answer: v.GetAnswer(),
	}
}

// The reads of the caller's own tasks are low risk and need no capability
// beyond the host's ownership scope; cancelling needs terminal.exec, the
// authority that starts the commands it stops.
func newTaskStatus() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "task_status", Description: taskStatusDoc, Effect: sdk.EffectRead,
		Metadata: sdk.Metadata{Risk: "low", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, p taskIDParams) (*sdk.Result, error) {
		v, err := ctx.TaskStatus(p.TaskID)
		if err != nil {
			return taskRefusal(err)
		}
		return taskResult(payloadOf(v)), nil
	})
}

func newTaskControl() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "task_control", Description: taskControlDoc, Effect: sdk.EffectControl,
		Metadata: sdk.Metadata{Risk: "low", Capability: "terminal.exec", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, p taskControlParams) (*sdk.Result, error) {
		if p.Command != "cancel" {
			return sdk.Errorf("invalid_command", "task_control: unknown command %q; the only command is cancel", shortArg(p.Command)), nil
		}
		v, err := ctx.TaskControl(p.TaskID, p.Command)
		if err != nil {
			return taskRefusal(err)
		}
		return taskResult(payloadOf(v)), nil
	})
}

func newYieldUntil() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "yield_until", Description: yieldUntilDoc, Effect: sdk.EffectRead,
		Metadata: sdk.Metadata{Risk: "low", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, p yieldUntilParams) (*sdk.Result, error) {
		secs := DefaultYieldSeconds
		if p.TimeoutSeconds != nil {
			secs = *p.TimeoutSeconds
		}
		if secs < 0 || secs > MaxYieldSeconds {
			return sdk.Errorf("invalid_timeout", "yield_until: timeout_seconds must be 0 to %d; wait again if the task is still running", MaxYieldSeconds), nil
		}
		v, timedOut, err := ctx.TaskWait(p.TaskID, time.Duration(secs)*time.Second)
		if err != nil {
			return taskRefusal(err)
		}
		pl := payloadOf(v)
		pl.TimedOut = timedOut
		return taskResult(pl), nil
	})
}

func newTaskList() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "task_list", Description: taskListDoc, Effect: sdk.EffectRead,
		Metadata: sdk.Metadata{Risk: "low", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, _ taskListParams) (*sdk.Result, error) {
		vs, err := ctx.TaskList()
		if err != nil {
			return taskRefusal(err)
		}
		tasks := make([]taskPayload, len(vs))
		var b strings.Builder
		for i, v := range vs {
			tasks[i] = payloadOf(v)
			b.WriteString(taskLine(tasks[i]))
			b.WriteByte('\n')
		}
		if len(vs) == 0 {
			b.WriteString("No background tasks in this session.\n")
		}
		return &sdk.Result{Content: b.String(), Structured: map[string]any{"tasks": tasks}}, nil
	})
}

func taskResult(p taskPayload) *sdk.Result {
	return &sdk.Result{Content: taskLine(p), Structured: p}
}

// taskLine is one task in a line: id, state, how it ended, what it runs.
func taskLine(p taskPayload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)", p.ID, p.State, p.Tool)
	if p.ReturnCode != nil {
		fmt.Fprintf(&b, " return code %d", *p.ReturnCode)
	}
	if p.ExitReason != "" {
		fmt.Fprintf(&b, " exit reason %s", p.ExitReason)
	}
	if p.TimedOut {
		b.WriteString("; still running at the timeout (not a failure): wait again or check later")
	}
	if p.Summary != "" {
		fmt.Fprintf(&b, ": %s", p.Summary)
	}
	if p.Answer != "" {
		fmt.Fprintf(&b, "\nanswer: %s", p.Answer)
	}
	return b.String()
}

// taskRefusal turns the host's answer for a task the caller cannot see, or
// a task service this turn lacks, into a result the model can act on.
func taskRefusal(err error) (*sdk.Result, error) {
	switch {
	case sdk.IsTaskNotFound(err):
		return sdk.Errorf("task_not_found", "%s", sdk.HostMessage(err)), nil
	case errors.Is(err, sdk.ErrNoHost):
		return sdk.Errorf("unavailable", "background tasks are not available here"), nil
	}
	return sdk.Errorf("unavailable", "%s", sdk.HostMessage(err)), nil
}

// shortArg bounds an argument echoed in an error.
func shortArg(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
