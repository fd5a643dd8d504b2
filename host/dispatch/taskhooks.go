package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// taskHooks answer a call's background-task requests (task_status,
// task_control, yield_until, task_list) for the turn's principal and
// session only: another session's or principal's task answers exactly like
// a missing one.
type taskHooks struct {
	bg    *Background
	scope runtime.TaskScope
	// boundary is the turn's envelope boundary (a child's answer is
	// wrapped as untrusted output).
	boundary func() string
}

// taskHooksFor is nil when the turn runs no background tasks, so that the
// task tools are refused rather than answered with an empty world.
func (t *Turn) taskHooksFor() plugins.TaskHooks {
	if t.Background == nil || t.Background.Tasks == nil {
		return nil
	}
	return &taskHooks{bg: t.Background, scope: runtime.TaskScope{Principal: t.Authority.Principal, Session: t.Authority.Session},
		boundary: t.EnvelopeBoundary}
}

func (h *taskHooks) Status(ctx context.Context, id string) (*toolsetv1.TaskView, error) {
	task, err := h.bg.Tasks.Get(h.scope, id)
	if err != nil {
		return nil, taskLookupError(id, err)
	}
	return h.view(task), nil
}

func (h *taskHooks) Cancel(ctx context.Context, id string) (*toolsetv1.TaskView, error) {
	task, err := h.bg.Tasks.Cancel(ctx, h.scope, id)
	if err != nil {
		return nil, taskLookupError(id, err)
	}
	return h.view(task), nil
}

// Wait returns the task when it ends or at the timeout. An ended task it
// returns has its completion consumed: the model saw the end in this
// result, so no separate completion turn may report it again.
func (h *taskHooks) Wait(ctx context.Context, id string, timeout time.Duration) (*toolsetv1.TaskView, bool, error) {
	task, timedOut, err := h.bg.Tasks.Wait(ctx, h.scope, id, timeout)
	if err != nil {
		return nil, false, taskLookupError(id, err)
	}
	if task.State.Terminal() && h.bg.Completions != nil {
		h.bg.Completions.consume(task.ID)
	}
	return h.view(task), timedOut, nil
}

func (h *taskHooks) List(ctx context.Context) ([]*toolsetv1.TaskView, error) {
	tasks, err := h.bg.Tasks.List(h.scope)
	if err != nil {
		return nil, fmt.Errorf("the task list could not be read: %w", err)
	}
	views := make([]*toolsetv1.TaskView, 0, min(len(tasks), maxListedTasks))
	for _, task := range tasks[:min(len(tasks), maxListedTasks)] {
		views = append(views, h.view(task))
	}
	return views, nil
}

// Completions is the set of tasks whose pending completion notification a
// yield_until consumed: it returned their end to the model. There is no
// background-completion turn yet; when there is, it asks Consumed and
// skips those tasks, so that one end is not reported twice.
type Completions struct{ ids sync.Map }

func (c *Completions) consume(id string) { c.ids.Store(id, struct{}{}) }

// Consume marks task id's end as reported already: no completion turn
// will tell of it (a foreground child, whose result the call returned).
func (c *Completions) Consume(id string) { c.consume(id) }

// Consumed reports whether a yield_until already gave the model the end of
// task id.
func (c *Completions) Consumed(id string) bool {
	_, ok := c.ids.Load(id)
	return ok
}

// MaxChildAnswer bounds a child's answer in the model's task payload, in
// runes.
const MaxChildAnswer = 4000

// maxListedTasks bounds task_list: the newest ones come first.
const maxListedTasks = 50

// taskLookupError gives a missing and a foreign task one and the same
// answer.
func taskLookupError(id string, err error) error {
	if errors.Is(err, runtime.ErrTaskNotFound) {
		return fmt.Errorf("task %q: %w in this session; task_list shows yours", printableShort(id, 64), plugins.ErrTaskNotFound)
	}
	return fmt.Errorf("task %q could not be read: %w", printableShort(id, 64), err)
}

// taskView is the model's projection of a task: bounded status and result
// fields only, never the owner, the call id, the result text or reference,
// the artifacts, the stream tails or the log.
func taskView(t runtime.Task) *toolsetv1.TaskView {
	v := &toolsetv1.TaskView{
		Id: t.ID, State: string(t.State), Tool: t.Tool,
		Summary:    printableShort(t.Summary, maxSummary),
		ExitReason: printableShort(t.ExitReason, 64),
		Created:    stamp(t.Created), Started: stamp(t.Started), Ended: stamp(t.Ended),
	}
	if t.ReturnCode != nil {
		rc := int32(*t.ReturnCode)
		v.ReturnCode = &rc
	}
	return v
}

// view is taskView with an agent.spawn task's answer: the child's model
// wrote it after reading what this session never saw, so it comes
// wrapped as untrusted output, screened (WrapChildAnswer); the task's
// agent metadata stays the operator's.
func (h *taskHooks) view(t runtime.Task) *toolsetv1.TaskView {
	v := taskView(t)
	if t.Tool == "agent.spawn" && t.Result != "" {
		var meta struct {
			AgentID string `json:"agent_id"`
		}
		_ = json.Unmarshal(t.Agent, &meta)
		v.Answer = WrapChildAnswer(h.boundary(), meta.AgentID, boundedText(t.Result, MaxChildAnswer))
	}
	return v
}

// WrapChildAnswer is a child agent's answer as its parent's model reads
// it outside a tool result of its own (task_status, yield_until, a
// completion turn's message): inside an untrusted envelope naming the
// child (ChildAgentOrigin), with the screening's verdict.
func WrapChildAnswer(boundary, agentID, answer string) string {
	head, tail, _ := envelope(boundary, ChildAgentOrigin(agentID), answer)
	return head + answer + tail
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
