package plugins

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// CoreHook runs the calling call's core-version action (rollback_core, evolve_core) in
// the host and returns the model's payload as JSON. Dispatch sets it only
// for the built-in tools it belongs to, bound to that call's approved
// arguments.
type CoreHook func(ctx context.Context) (string, error)

// ErrCoreRefused marks a refusal the model should read (nothing previous,
// a revision that was never live, a ref moved under the call).
var ErrCoreRefused = errors.New("core action refused")

func (h *hostServices) CoreControl(ctx context.Context, req *toolsetv1.CoreControlRequest) (*toolsetv1.CoreControlResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Core == nil {
		return nil, status.Error(codes.PermissionDenied, "no core version action can be run here: only the built-in rollback_core and evolve_core of a session whose core comes from the core repository runs one")
	}
	out, err := hk.Core(ctx)
	switch {
	case err == nil:
		return &toolsetv1.CoreControlResponse{ResultJson: out}, nil
	case errors.Is(err, ErrCoreRefused):
		return nil, status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, status.Error(codes.Canceled, err.Error())
	}
	return nil, status.Error(codes.Unavailable, err.Error())
}
