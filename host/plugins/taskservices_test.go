package plugins

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// oneTask answers for one task id and records the wait it was asked for.
type oneTask struct {
	id     string
	waited time.Duration
}

func (o *oneTask) view(id string) (*toolsetv1.TaskView, error) {
	if id != o.id {
		return nil, fmt.Errorf("task %q: %w", id, ErrTaskNotFound)
	}
	return &toolsetv1.TaskView{Id: id, State: "running"}, nil
}
func (o *oneTask) Status(_ context.Context, id string) (*toolsetv1.TaskView, error) {
	return o.view(id)
}
func (o *oneTask) Cancel(_ context.Context, id string) (*toolsetv1.TaskView, error) {
	return o.view(id)
}
func (o *oneTask) Wait(_ context.Context, id string, d time.Duration) (*toolsetv1.TaskView, bool, error) {
	o.waited = d
	v, err := o.view(id)
	return v, err == nil, err
}
func (o *oneTask) List(context.Context) ([]*toolsetv1.TaskView, error) {
	v, _ := o.view(o.id)
	return []*toolsetv1.TaskView{v}, nil
}

func TestTaskServicesAnswerOnlyIssuedInvocations(t *testing.T) {
	hs := newHostServices()
	tasks := &oneTask{id: "task_1"}
	hs.begin("with", Hooks{Tasks: tasks})
	hs.begin("without", Hooks{})
	ctx := context.Background()
	for _, c := range []struct {
		name string
		call func() error
		want codes.Code
	}{
		{"status", func() error {
			_, err := hs.TaskStatus(ctx, &toolsetv1.TaskStatusRequest{InvocationId: "with", TaskId: "task_1"})
			return err
		}, codes.OK},
		{"status of a task out of scope", func() error {
			_, err := hs.TaskStatus(ctx, &toolsetv1.TaskStatusRequest{InvocationId: "with", TaskId: "task_2"})
			return err
		}, codes.NotFound},
		{"never issued", func() error {
			_, err := hs.TaskList(ctx, &toolsetv1.TaskListRequest{InvocationId: "never-issued"})
			return err
		}, codes.PermissionDenied},
		{"ended invocation", func() error {
			hs.begin("ended", Hooks{Tasks: tasks})
			hs.end("ended")
			_, err := hs.TaskStatus(ctx, &toolsetv1.TaskStatusRequest{InvocationId: "ended", TaskId: "task_1"})
			return err
		}, codes.PermissionDenied},
		{"turn without tasks", func() error {
			_, err := hs.TaskList(ctx, &toolsetv1.TaskListRequest{InvocationId: "without"})
			return err
		}, codes.FailedPrecondition},
		{"unknown command", func() error {
			_, err := hs.TaskControl(ctx, &toolsetv1.TaskControlRequest{InvocationId: "with", TaskId: "task_1", Command: "pause"})
			return err
		}, codes.InvalidArgument},
		{"cancel", func() error {
			_, err := hs.TaskControl(ctx, &toolsetv1.TaskControlRequest{InvocationId: "with", TaskId: "task_1", Command: "cancel"})
			return err
		}, codes.OK},
		{"negative wait", func() error {
			_, err := hs.TaskWait(ctx, &toolsetv1.TaskWaitRequest{InvocationId: "with", TaskId: "task_1", TimeoutMs: -1})
			return err
		}, codes.InvalidArgument},
	} {
		if got := status.Code(c.call()); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	resp, err := hs.TaskWait(ctx, &toolsetv1.TaskWaitRequest{InvocationId: "with", TaskId: "task_1", TimeoutMs: int64(time.Hour / time.Millisecond)})
	if err != nil || !resp.GetTimedOut() || tasks.waited != MaxTaskWait {
		t.Errorf("an hour's wait = %v, %v, waited %v; want it bounded to %v", resp, err, tasks.waited, MaxTaskWait)
	}
}
