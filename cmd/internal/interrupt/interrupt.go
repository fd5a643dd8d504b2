// Package interrupt is how a front end (the full CLI and the small front
// end alike) ends on Ctrl-C or SIGTERM: the work's context is cancelled,
// and the command exits with the status a shell reports for the signal.
// The first signal only is caught: a second one, while the work is still
// winding down, has its default action and ends the process at once, so
// work that does not look at its context never leaves the operator only
// SIGKILL.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Exit statuses after a signal, as a shell reports them: 128 + signal.
const (
	Interrupted = 130 // SIGINT (Ctrl-C)
	Terminated  = 143 // SIGTERM
)

// Caught is the exit status owed to the first SIGINT or SIGTERM a
// Context caught, 0 while none was.
var Caught atomic.Int32

// Context is parent cancelled at the first SIGINT or SIGTERM, which
// Caught then records; from then on neither signal is caught.
func Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			code := int32(Interrupted)
			if s == syscall.SIGTERM {
				code = Terminated
			}
			Caught.CompareAndSwap(0, code)
			signal.Stop(ch)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
