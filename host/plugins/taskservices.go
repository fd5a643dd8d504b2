package plugins

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// TaskHooks are the background-task answers for one invocation. The host
// scopes them to the calling turn's principal and session; every answer is
// the bounded model view. A task outside the scope is ErrTaskNotFound,
// exactly like a missing one.
type TaskHooks interface {
	Status(ctx context.Context, id string) (*toolsetv1.TaskView, error)
	Cancel(ctx context.Context, id string) (*toolsetv1.TaskView, error)
	Wait(ctx context.Context, id string, timeout time.Duration) (view *toolsetv1.TaskView, timedOut bool, err error)
	List(ctx context.Context) ([]*toolsetv1.TaskView, error)
}

// ErrTaskNotFound is what TaskHooks return for a task the caller cannot
// see; the plugin gets NotFound with the error's text.
var ErrTaskNotFound = errors.New("no such task")

// MaxTaskWait bounds one TaskWait: a plugin cannot hold a call open longer.
const MaxTaskWait = 10 * time.Minute

func (h *hostServices) taskHooks(id string) (TaskHooks, error) {
	hk, err := h.hooks(id)
	if err != nil {
		return nil, err
	}
	if hk.Tasks == nil {
		return nil, status.Error(codes.FailedPrecondition, "background tasks are not available in this turn")
	}
	return hk.Tasks, nil
}

// taskError maps a hook's error to the status the plugin sees.
func taskError(err error) error {
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.Canceled, err.Error())
	}
	return status.Error(codes.Unavailable, err.Error())
}

func (h *hostServices) TaskStatus(ctx context.Context, req *toolsetv1.TaskStatusRequest) (*toolsetv1.TaskResponse, error) {
	th, err := h.taskHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	v, err := th.Status(ctx, req.GetTaskId())
	if err != nil {
		return nil, taskError(err)
	}
	return &toolsetv1.TaskResponse{Task: v}, nil
}

func (h *hostServices) TaskControl(ctx context.Context, req *toolsetv1.TaskControlRequest) (*toolsetv1.TaskResponse, error) {
	th, err := h.taskHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if req.GetCommand() != "cancel" {
		return nil, status.Errorf(codes.InvalidArgument, "unknown task command %q; the only command is cancel", shortText(req.GetCommand(), 40))
	}
	v, err := th.Cancel(ctx, req.GetTaskId())
	if err != nil {
		return nil, taskError(err)
	}
	return &toolsetv1.TaskResponse{Task: v}, nil
}

func (h *hostServices) TaskWait(ctx context.Context, req *toolsetv1.TaskWaitRequest) (*toolsetv1.TaskResponse, error) {
	th, err := h.taskHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(req.GetTimeoutMs()) * time.Millisecond
	if timeout < 0 {
		return nil, status.Error(codes.InvalidArgument, "timeout must not be negative")
	}
	timeout = min(timeout, MaxTaskWait)
	v, timedOut, err := th.Wait(ctx, req.GetTaskId(), timeout)
	if err != nil {
		return nil, taskError(err)
	}
	return &toolsetv1.TaskResponse{Task: v, TimedOut: timedOut}, nil
}

func (h *hostServices) TaskList(ctx context.Context, req *toolsetv1.TaskListRequest) (*toolsetv1.TaskListResponse, error) {
	th, err := h.taskHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	vs, err := th.List(ctx)
	if err != nil {
		return nil, taskError(err)
	}
	return &toolsetv1.TaskListResponse{Tasks: vs}, nil
}

// shortText bounds text a plugin sent before it is echoed back.
func shortText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
