package plugins

import (
	"context"
	"errors"

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
