package toolhost

import (
	"context"
	"errors"
	"fmt"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/shared/toolsetv1"
)

// DefaultCallTimeout bounds an authored or MCP tool call when the operator
// set no --call-timeout. The core cannot set it: a core that could would
// let the agent's own files keep a hung worker alive.
const DefaultCallTimeout = 10 * time.Minute

// callTimeout is the host's bound on one authored tool call: when it
// passes, the call's context ends (the plugin stops the worker) and the
// call fails with a message saying so.
type callTimeout struct {
	inner dispatch.Adapter
	d     time.Duration
}

func withCallTimeout(inner dispatch.Adapter, d time.Duration) dispatch.Adapter {
	if d <= 0 {
		d = DefaultCallTimeout
	}
	return &callTimeout{inner: inner, d: d}
}

func (c *callTimeout) Invoke(ctx context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	timedOut := fmt.Errorf("%s did not finish within the host's call timeout of %s, so it was cancelled and its worker stopped; the operator sets the timeout with --call-timeout", inv.Tool, c.d)
	ctx, cancel := context.WithTimeoutCause(ctx, c.d, timedOut)
	defer cancel()
	res, err := c.inner.Invoke(ctx, inv)
	if errors.Is(context.Cause(ctx), timedOut) {
		return nil, timedOut
	}
	return res, err
}

func (c *callTimeout) Precheck(ctx context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, c.d)
	defer cancel()
	return c.inner.Precheck(ctx, inv)
}
