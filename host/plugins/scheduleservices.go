package plugins

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// ScheduleHook runs one schedule_manage call with that call's own
// approved arguments and returns the model's payload as JSON.
type ScheduleHook func(ctx context.Context) (string, error)

// ErrScheduleRefused marks a refused schedule_manage request (a bad
// argument, an unknown schedule): the model gets its message.
var ErrScheduleRefused = errors.New("schedule request refused")

func (h *hostServices) ScheduleManage(ctx context.Context, req *toolsetv1.ScheduleManageRequest) (*toolsetv1.ScheduleManageResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Schedule == nil {
		return nil, status.Error(codes.PermissionDenied, "schedules are managed only by the built-in schedule_manage of a turn in the long-lived host, and never by a scheduled run")
	}
	out, err := hk.Schedule(ctx)
	switch {
	case err == nil:
		return &toolsetv1.ScheduleManageResponse{ResultJson: out}, nil
	case errors.Is(err, ErrScheduleRefused):
		return nil, status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, status.Error(codes.Canceled, err.Error())
	}
	return nil, status.Error(codes.Unavailable, err.Error())
}
