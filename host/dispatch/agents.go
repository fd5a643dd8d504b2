package dispatch

import (
	"context"
	"fmt"
	"slices"
	"time"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
)

// SpawnCapability is what authored code must declare, and its session
// hold, to start children with ctx.agents: the same grant the model's
// delegate_task needs, so that code the agent wrote can start no child
// the session could not start itself.
const SpawnCapability = policy.PrefixToolCall + ":delegate_task"

// agentHooks gives authored code (a tool or a pipeline slot; caller names
// it, callID is its call) ctx.agents through this turn's spawn gate. The
// child's authority derives from the session's, as for delegate_task.
// heard, when not nil, records each child whose answer the code receives
// (an authored tool's: its whole result is then wrapped); a slot's code,
// whose change enters the conversation as it is, gets answers wrapped.
func (t *Turn) agentHooks(caller, callID string, declared []string, heard *heardChildren) *plugins.AgentHooks {
	a := &plugins.AgentHooks{}
	switch {
	case t.Delegate == nil || t.AgentTask == nil:
		a.Refusal = "no child agent can be started here: ctx.agents needs a turn with the spawn gate (demiurge run, the interactive session)"
	case !slices.Contains(declared, SpawnCapability):
		a.Refusal = fmt.Sprintf("%s did not declare %s in its capabilities, which ctx.agents needs", caller, SpawnCapability)
	case !t.Authority.Capabilities.Has(SpawnCapability):
		a.Refusal = fmt.Sprintf("%s is not granted to this session, so ctx.agents cannot start a child", SpawnCapability)
	}
	if a.Refusal != "" {
		return a
	}
	a.Spawn = func(ctx context.Context, req []byte, wait bool) (string, error) {
		call := DelegateCall{Turn: t.ID, CallID: callID, Args: slices.Clone(req), Authored: true, Wait: wait}
		if t.Background != nil {
			call.Completions = t.Background.Completions
		}
		if t.Approvals != nil {
			call.Asker = t.Approvals.Provider
		}
		out, err := t.Delegate(ctx, call)
		if err != nil {
			return out, err
		}
		return t.childResultFor(out, heard), nil
	}
	a.Task = func(ctx context.Context, op, taskID string, timeout time.Duration) (string, error) {
		out, err := t.AgentTask(ctx, op, taskID, timeout)
		if err != nil {
			return out, err
		}
		return t.childResultFor(out, heard), nil
	}
	return a
}
