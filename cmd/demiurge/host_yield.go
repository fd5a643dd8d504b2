package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// A command that opens the store in process (one that does not go
// through the host yet, or any with DEMIURGE_HOST=off) first asks an idle
// host (no front end attached, no running task) to stop, and goes on; a
// busy one is named, with what keeps it busy, rather than waiting for
// the store's lock to time out. The host itself never yields, nor does a
// demiurge inside a host's process tree (the host refuses its calls; it
// is a whole host of its own, on its own state).

// isHostProcess is set by `host start --foreground`.
var isHostProcess bool

func init() {
	toolhost.BeforeStoreOpen = func(state string) error {
		if isHostProcess || inHostTree() {
			return nil
		}
		return yieldIdleHost(state)
	}
}

// yieldIdleHost stops the state's host if it is idle, and waits until it
// has let go of the store.
func yieldIdleHost(state string) error {
	pid, st, err := stopIfIdle(state)
	if err != nil || st == nil {
		return err
	}
	why := "this command does not go through the host yet"
	if !hostEnabled() {
		why = "DEMIURGE_HOST=off keeps this command in its own process"
	}
	return fmt.Errorf("the state is held by a running host (pid %d) with %d front end(s) and %d running task(s), and %s: run it when they have ended, or `demiurge host stop`", pid, st.FrontEnds, st.RunningTasks, why)
}

// stopIfIdle stops the state's host if it has no front end and no running
// task, and waits until it has let go of the state. A busy host is left
// running and its status returned.
func stopIfIdle(state string) (pid int, busy *hostv1.StatusResponse, err error) {
	pid, running := hostd.Running(state)
	if !running {
		return pid, nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Hello is not needed to ask: Status and Stop are answered to any
	// admitted front end, whatever its options.
	cl, err := hostd.Dial(ctx, state, hostd.DialOptions{Config: hostd.AnyConfig})
	if errors.Is(err, hostd.ErrNoHost) {
		return pid, nil, nil
	}
	if err != nil {
		return pid, nil, fmt.Errorf("the state is held by a running host (pid %d), which this command cannot reach: %w", pid, err)
	}
	defer cl.Close()
	st, err := cl.Status(ctx, &hostv1.StatusRequest{})
	if err != nil {
		return pid, nil, fmt.Errorf("the state is held by a running host (pid %d): %w", pid, err)
	}
	if st.FrontEnds > 0 || st.RunningTasks > 0 {
		return pid, st, nil
	}
	if _, err := cl.Stop(ctx, &hostv1.StopRequest{}); err != nil {
		return pid, nil, fmt.Errorf("the idle host (pid %d) could not be stopped: %w", pid, err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, still := hostd.Running(state); !still {
			return pid, nil, nil
		}
	}
	return pid, nil, fmt.Errorf("the idle host (pid %d) was asked to stop and still holds the state after 30s", pid)
}
