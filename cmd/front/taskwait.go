package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/cmd/internal/interrupt"
	"demiurge.dev/host/runtime"
)

// The tasks commands that wait or act: `tasks wait`, `tasks cancel` and
// `tasks logs --follow`, asked as the full CLI's tasksAction asks them.
// Until the first word is printed (or the cancel sent) whatever goes
// wrong hands over and the full CLI asks again. After it, an error ends
// the command as it ends the full CLI's: the host gone hands over too
// (the full CLI then answers from the store, from the start, as its own
// retry does), an interrupt exits with the signal's status, anything
// else is reported.

// taskWait is `tasks wait ID [--timeout D] [--exit-code]`: nothing is
// printed until the wait ends, so any error hands over.
func taskWait(ctx context.Context, req frontargs.Request, m *runtime.RemoteTasks, scope runtime.TaskScope) (int, bool) {
	id, ok := resolve(m, scope, req.Task)
	if !ok {
		return 0, true
	}
	t, timedOut, err := m.Wait(ctx, scope, id, req.Timeout)
	if err != nil {
		if code, caught := interrupted(err); caught {
			return code, false
		}
		return 0, true
	}
	var out bytes.Buffer
	if frontview.Task(&out, t, &timedOut, req.JSON) != nil {
		return 0, true
	}
	code := 0
	if req.ExitCode {
		code = frontview.TaskExitStatus(t, timedOut)
	}
	return printed(out.Bytes(), nil, code)
}

// taskCancel is `tasks cancel ID`: what the task was before the cancel
// says whether anything was cancelled.
func taskCancel(ctx context.Context, req frontargs.Request, m *runtime.RemoteTasks, scope runtime.TaskScope) (int, bool) {
	id, ok := resolve(m, scope, req.Task)
	if !ok {
		return 0, true
	}
	before, err := m.Get(scope, id)
	if err != nil {
		return 0, true
	}
	// From here the cancel may have been made: never asked twice here.
	t, err := m.Cancel(ctx, scope, id)
	if err != nil {
		return afterSent(err)
	}
	var out bytes.Buffer
	if frontview.Cancelled(&out, id, before, t, req.JSON) != nil {
		return 0, true
	}
	return printed(out.Bytes(), nil, 0)
}

// taskFollow is `tasks logs ID --follow`: each chunk printed as it comes.
func taskFollow(ctx context.Context, req frontargs.Request, m *runtime.RemoteTasks, scope runtime.TaskScope) (int, bool) {
	id, ok := resolve(m, scope, req.Task)
	if !ok {
		return 0, true
	}
	first := true
	err := m.Logs(ctx, scope, id, 0, true, func(c runtime.LogChunk) error {
		err := frontview.TaskLogChunk(os.Stdout, os.Stderr, c, first, req.JSON)
		first = false
		return err
	})
	switch {
	case err == nil:
		return 0, false
	case first:
		// Nothing printed: the full CLI asks again.
		if code, caught := interrupted(err); caught {
			return code, false
		}
		return 0, true
	}
	return afterSent(err)
}

// afterSent ends a command whose effect or output has begun, with err,
// as the full CLI ends it.
func afterSent(err error) (int, bool) {
	if code, caught := interrupted(err); caught {
		return code, false
	}
	if errors.Is(err, runtime.ErrOwnerGone) {
		return 0, true
	}
	fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
	return 1, false
}

// interrupted is the full CLI's end after Ctrl-C or SIGTERM: the error
// said unless it is only the cancellation, and the signal's status. (The
// host is running, so the full CLI's retry from the store finds the store
// held and reports the first error.)
func interrupted(err error) (int, bool) {
	caught := interrupt.Caught.Load()
	if caught == 0 {
		return 0, false
	}
	if err != nil && !errors.Is(err, context.Canceled) && err.Error() != "" {
		fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
	}
	return int(caught), true
}
