package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
)

// maxAuthoredAnswer bounds the answer authored code gets back (the
// model's payload is bounded tighter, dispatch.MaxChildAnswer).
const maxAuthoredAnswer = 256 << 10

// ParseAuthored reads ctx.agents' child controls: delegate_task's, less
// notify_policy (run waits for the child; spawn hands back a handle and
// no completion turn reports it).
func ParseAuthored(raw []byte, wait bool) (Request, error) {
	var np struct {
		NotifyPolicy json.RawMessage `json:"notify_policy"`
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&np); err == nil && np.NotifyPolicy != nil {
		return Request{}, refuse("notify_policy is not a ctx.agents control: run waits for the child, spawn returns a handle")
	}
	r, err := ParseDelegate(raw)
	if err != nil {
		return Request{}, err
	}
	r.NotifyPolicy = NotifySilent
	if wait {
		r.NotifyPolicy = NotifyWait
	}
	return r, nil
}

// spawnAuthored answers ctx.agents.run (the child's AgentRunResult) and
// ctx.agents.spawn (its handle: task and agent ids).
func (g *Gate) spawnAuthored(ctx context.Context, parent *toolhost.Session, call dispatch.DelegateCall) (string, error) {
	req, err := ParseAuthored(call.Args, call.Wait)
	if err != nil {
		return "", err
	}
	req.Asker, req.FrontEnd = call.Asker, call.FrontEnd
	c, err := g.Spawn(ctx, parent, call.Turn, call.CallID, req)
	if err != nil {
		return "", err
	}
	if call.Completions != nil {
		// The authored code holds the result or the handle: no completion
		// turn reports the child to the model.
		call.Completions.Consume(c.TaskID)
	}
	if !call.Wait {
		return marshalJSON(AgentRunResult{Status: "running", TaskID: c.TaskID, AgentID: c.AgentID})
	}
	res := g.waitForeground(ctx, parent, c)
	res.Answer = bounded(res.Answer, maxAuthoredAnswer)
	return marshalJSON(res)
}

// The ops of an AgentSpawnHandle.
const (
	OpStatus = "status"
	OpWait   = "wait"
	OpCancel = "cancel"
)

// handleResult is an AgentRunResult as a handle sees it: running until
// the child ends; TimedOut when a wait ended first.
type handleResult struct {
	AgentRunResult
	TimedOut bool `json:"timed_out,omitempty"`
}

// AgentTask answers an AgentSpawnHandle of parent's session: status,
// wait (at most timeout) or cancel of one of its agent.spawn tasks. A
// task that is missing, another session's or not a child's answers
// plugins.ErrNoAgentTask alike.
func (g *Gate) AgentTask(ctx context.Context, parent *toolhost.Session, op, taskID string, timeout time.Duration) (string, error) {
	tm, err := g.Host.Tasks()
	if err != nil {
		return "", err
	}
	scope := parent.TaskScope()
	t, err := tm.Get(scope, taskID)
	if errors.Is(err, runtime.ErrTaskNotFound) || (err == nil && t.Tool != TaskTool) {
		return "", fmt.Errorf("%w %q", plugins.ErrNoAgentTask, short(taskID))
	}
	if err != nil {
		return "", err
	}
	timedOut := false
	switch op {
	case OpStatus:
	case OpWait:
		if timeout <= 0 {
			timeout = 24 * time.Hour // the caller's deadline bounds it
		}
		t, timedOut, err = tm.Wait(ctx, scope, taskID, timeout)
	case OpCancel:
		t, err = tm.Cancel(ctx, scope, taskID)
	default:
		return "", refuse("op %q: use status, wait or cancel", short(op))
	}
	if err != nil {
		return "", err
	}
	return marshalJSON(handleResult{AgentRunResult: resultOfTask(t), TimedOut: timedOut})
}

// resultOfTask is the AgentRunResult a task record holds: its end state,
// answer, steps and usage (the last two from its metadata).
func resultOfTask(t runtime.Task) AgentRunResult {
	var m Meta
	_ = json.Unmarshal(t.Agent, &m)
	r := AgentRunResult{TaskID: t.ID, AgentID: m.AgentID, Steps: m.Steps, Usage: m.Usage,
		Answer: bounded(t.Result, maxAuthoredAnswer)}
	switch {
	case !t.State.Terminal():
		r.Status = "running"
	case t.State == runtime.TaskCancelled:
		r.Status = StatusCancelled
	case t.State == runtime.TaskLost:
		r.Status = StatusFailed
	case inClosedSet(m.Status):
		r.Status = m.Status
	case t.State == runtime.TaskSucceeded:
		r.Status = StatusCompleted
	default:
		r.Status = StatusFailed
	}
	return r
}

func inClosedSet(s string) bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusCancelled, StatusTimeout, StatusBudgetExceeded:
		return true
	}
	return false
}

func marshalJSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
