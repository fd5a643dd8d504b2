package sdk

import (
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// The background-task client of a call: the host answers for the calling
// turn's principal and session only, with the bounded model view of each
// task. A task the caller cannot see is reported by IsTaskNotFound,
// whether it is missing or someone else's.

// TaskStatus returns the current status of a background task.
func (c *Context) TaskStatus(id string) (*toolsetv1.TaskView, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	resp, err := h.TaskStatus(c, &toolsetv1.TaskStatusRequest{InvocationId: c.InvocationID, TaskId: id})
	return resp.GetTask(), err
}

// TaskControl applies command (only "cancel") to a background task and
// returns its status after.
func (c *Context) TaskControl(id, command string) (*toolsetv1.TaskView, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	resp, err := h.TaskControl(c, &toolsetv1.TaskControlRequest{InvocationId: c.InvocationID, TaskId: id, Command: command})
	return resp.GetTask(), err
}

// TaskWait waits until the task ends or timeout passes and returns its
// status then; timedOut says it was still running (not that it failed).
func (c *Context) TaskWait(id string, timeout time.Duration) (view *toolsetv1.TaskView, timedOut bool, err error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, false, err
	}
	resp, err := h.TaskWait(c, &toolsetv1.TaskWaitRequest{InvocationId: c.InvocationID, TaskId: id, TimeoutMs: timeout.Milliseconds()})
	return resp.GetTask(), resp.GetTimedOut(), err
}

// TaskList lists the background tasks of the calling turn's session,
// newest first.
func (c *Context) TaskList() ([]*toolsetv1.TaskView, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	resp, err := h.TaskList(c, &toolsetv1.TaskListRequest{InvocationId: c.InvocationID})
	return resp.GetTasks(), err
}

// IsTaskNotFound reports whether err says the task does not exist for the
// caller.
func IsTaskNotFound(err error) bool { return status.Code(err) == codes.NotFound }

// HostMessage is the text of an error the host answered with, without the
// transport's framing; other errors are returned as they are.
func HostMessage(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Message()
	}
	return err.Error()
}

func (c *Context) hostClient() (toolsetv1.HostServicesClient, error) {
	if c.host == nil {
		return nil, ErrNoHost
	}
	return c.host()
}
