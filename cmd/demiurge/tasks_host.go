package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// hostTasks reaches the live tasks of the state's running host over the
// host socket (its Tasks call); no host is started for it: with none
// running, the record in the store answers. ok is false when no host
// (of protocol minor 6 or later) runs.
func hostTasks(c *cli.Context, state string) (tasks *runtime.RemoteTasks, closeFn func(), ok bool) {
	if !hostEnabled() {
		return nil, nil, false
	}
	// Tasks are not shaped by the host's options: any front end of the
	// operator's may ask, as over the task socket before.
	cl, err := hostd.Dial(c.Context, state, hostd.DialOptions{Config: hostd.AnyConfig, Principal: c.String("principal")})
	if err != nil {
		return nil, nil, false
	}
	if cl.Needs(6, "tasks") != nil {
		cl.Close()
		return nil, nil, false
	}
	principal := c.String("principal")
	return runtime.RemoteTasksVia(func(ctx context.Context, req []byte, fn func([]byte) error) error {
		stream, err := cl.Tasks(ctx, &hostv1.TasksRequest{Principal: principal, Request: req})
		if err != nil {
			return hostTaskErr(err)
		}
		for {
			rep, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return hostTaskErr(err)
			}
			if err := fn(rep.Reply); err != nil {
				return err
			}
		}
	}), func() { cl.Close() }, true
}

// hostTaskErr: a host gone mid-request is the owner gone (the store
// then answers); a refusal keeps its message.
func hostTaskErr(err error) error {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Unavailable, codes.Canceled:
		return fmt.Errorf("%w: %s", runtime.ErrOwnerGone, st.Message())
	}
	return errors.New(st.Message())
}
