package hostclient

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// RemoteTasks is the host's task manager through its Tasks call (host protocol
// 1.6; the caller checks Needs), for principal ("": the front end's own,
// which the host fills in). Both front ends ask through it, so that what
// goes wrong reads the same from either.
func (c *Client) RemoteTasks(principal string) *runtime.RemoteTasks {
	return runtime.RemoteTasksVia(func(ctx context.Context, req []byte, fn func([]byte) error) error {
		stream, err := c.Tasks(ctx, &hostv1.TasksRequest{Principal: principal, Request: req})
		if err != nil {
			return TaskErr(err)
		}
		for {
			rep, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return TaskErr(err)
			}
			if err := fn(rep.Reply); err != nil {
				return err
			}
		}
	})
}

// TaskErr: a host gone mid-request is the owner gone (the store then
// answers); a refusal keeps its message.
func TaskErr(err error) error {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Unavailable, codes.Canceled:
		return fmt.Errorf("%w: %s", runtime.ErrOwnerGone, st.Message())
	}
	return errors.New(st.Message())
}
