package plugins

import (
	"context"
	"time"

	"demiurge.dev/shared/toolsetv1"
)

// cancelRPCTimeout bounds the Cancel RPC itself; a plugin too busy to
// answer it still has its stream cancelled at the end of the grace.
const cancelRPCTimeout = 2 * time.Second

// streamContext is the context an Invoke stream runs under. Without grace
// it is ctx's child: the caller's end cancels the stream at once. With
// grace the stream outlives the caller: when ctx ends the plugin is asked
// to cancel the invocation (so a command it runs is ended the plugin's own
// way, TERM then KILL, and its exit status reported), and the stream is
// cancelled only if no result came within grace. The returned cancel ends
// the stream and the watcher.
func streamContext(ctx context.Context, grace time.Duration, ts toolsetv1.ToolsetClient, invocationID string) (context.Context, context.CancelFunc) {
	if grace <= 0 {
		return context.WithCancel(ctx)
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		rctx, done := context.WithTimeout(sctx, cancelRPCTimeout)
		_, _ = ts.Cancel(rctx, &toolsetv1.CancelRequest{InvocationId: invocationID})
		done()
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-sctx.Done(): // the call returned
		}
	})
	return sctx, func() {
		stop()
		cancel()
	}
}
