package plugins

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// DelegateHook starts a child agent for the calling call (delegate_task)
// and returns the model's payload as JSON. Dispatch sets it only for the
// built-in delegate_task, bound to that call's approved arguments.
type DelegateHook func(ctx context.Context) (string, error)

// ErrSpawnRefused marks a refusal of the spawn gate (a bad argument, a
// tool the parent lacks, a limit): the model gets its message.
var ErrSpawnRefused = errors.New("spawn refused")

func (h *hostServices) DelegateTask(ctx context.Context, req *toolsetv1.DelegateTaskRequest) (*toolsetv1.DelegateTaskResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Delegate == nil {
		return nil, status.Error(codes.PermissionDenied, "no child agent can be started here: only the built-in delegate_task of a turn with the spawn gate (demiurge run, the interactive session) starts one")
	}
	out, err := hk.Delegate(ctx)
	switch {
	case err == nil:
		return &toolsetv1.DelegateTaskResponse{ResultJson: out}, nil
	case errors.Is(err, ErrSpawnRefused):
		return nil, status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, status.Error(codes.Canceled, err.Error())
	}
	return nil, status.Error(codes.Unavailable, err.Error())
}

// AgentHooks answer authored code's ctx.agents for one invocation.
type AgentHooks struct {
	// Spawn starts a child with the controls in requestJSON (delegate_task's
	// argument names); wait runs it in the foreground and answers its
	// AgentRunResult, else its task id. A refusal wraps ErrSpawnRefused.
	Spawn func(ctx context.Context, requestJSON []byte, wait bool) (string, error)
	// Task answers status, wait (bounded by timeout; 0: the caller's
	// deadline) or cancel of an agent.spawn task of the invocation's
	// session. A task that is not there, or not the session's, wraps
	// ErrNoAgentTask.
	Task func(ctx context.Context, op, taskID string, timeout time.Duration) (string, error)
	// Refusal, when set, is why this invocation may not start children
	// (it did not declare tool.call:delegate_task, or the session lacks
	// it): both RPCs answer PermissionDenied with it.
	Refusal string
}

// ErrNoAgentTask answers a task id that is missing or another session's:
// the two are not told apart.
var ErrNoAgentTask = errors.New("no such agent task")

func (h *hostServices) agentHooks(id string) (*AgentHooks, error) {
	hk, err := h.hooks(id)
	if err != nil {
		return nil, err
	}
	switch {
	case hk.Agents == nil:
		return nil, status.Error(codes.PermissionDenied, "ctx.agents is for authored tools and pipeline slots of a turn with the spawn gate (demiurge run, the interactive session)")
	case hk.Agents.Refusal != "":
		return nil, status.Error(codes.PermissionDenied, hk.Agents.Refusal)
	}
	return hk.Agents, nil
}

func (h *hostServices) SpawnAgent(ctx context.Context, req *toolsetv1.SpawnAgentRequest) (*toolsetv1.SpawnAgentResponse, error) {
	a, err := h.agentHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	out, err := a.Spawn(ctx, []byte(req.GetRequestJson()), req.GetWait())
	if err != nil {
		return nil, agentStatus(err)
	}
	return &toolsetv1.SpawnAgentResponse{ResultJson: out}, nil
}

func (h *hostServices) AgentTask(ctx context.Context, req *toolsetv1.AgentTaskRequest) (*toolsetv1.AgentTaskResponse, error) {
	a, err := h.agentHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	out, err := a.Task(ctx, req.GetOp(), req.GetTaskId(), time.Duration(req.GetTimeoutMs())*time.Millisecond)
	if err != nil {
		return nil, agentStatus(err)
	}
	return &toolsetv1.AgentTaskResponse{ResultJson: out}, nil
}

func agentStatus(err error) error {
	switch {
	case errors.Is(err, ErrSpawnRefused):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, ErrNoAgentTask):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.Canceled, err.Error())
	}
	return status.Error(codes.Unavailable, err.Error())
}
