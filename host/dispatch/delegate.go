package dispatch

import (
	"context"
	"encoding/json"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/plugins"
)

// DelegateCall is one delegate_task call as the spawn gate gets it: the
// call's own arguments (those dispatch validated and approved, never a
// plugin's restatement of them), its id and its turn's.
type DelegateCall struct {
	Turn, CallID string
	Args         json.RawMessage
	// Completions is the turn's consumed-completion set: a child whose
	// end must start no completion turn (a foreground or silent one) is
	// marked consumed in it.
	Completions *Completions
	// Asker is the parent turn's front-end approver: a child's approval
	// prompts go to it, naming the child (nil: no one can answer).
	Asker approval.Provider
	// FrontEnd is the parent turn's front end (a turn.FrontEnd, which
	// dispatch cannot name): children's events are shown to it.
	FrontEnd any
	// Authored is set when authored code asks (ctx.agents.run or spawn):
	// Args are its child controls, Wait says run (foreground) or spawn,
	// and the answer is the full AgentRunResult or the task's handle
	// rather than the model's bounded payload.
	Authored bool
	Wait     bool
}

// AgentTasker answers an AgentSpawnHandle's status, wait and cancel for
// this turn's session (the host sets it with the spawn gate).
type AgentTasker func(ctx context.Context, op, taskID string, timeout time.Duration) (string, error)

// Delegator starts a child agent for a delegate_task call of this turn's
// session and returns the model's payload as JSON; a refusal wraps
// plugins.ErrSpawnRefused. The host sets it (the spawn gate); nil refuses
// delegate_task.
type Delegator func(ctx context.Context, call DelegateCall) (string, error)

// delegateHook gives a built-in tool that declares the delegate service
// (delegate_task), and only it, the turn's spawn gate bound to this call.
func (t *Turn) delegateHook(p *prepared, hk *plugins.Hooks) {
	if t.Delegate == nil || !p.grants(catalog.ServiceDelegate) {
		return
	}
	call := DelegateCall{Turn: t.ID, CallID: p.call.ID, Args: append(json.RawMessage(nil), p.argsRaw...)}
	if t.Background != nil {
		call.Completions = t.Background.Completions
	}
	if t.Approvals != nil {
		call.Asker = t.Approvals.Provider
	}
	hk.Delegate = func(ctx context.Context) (string, error) { return t.Delegate(ctx, call) }
}
