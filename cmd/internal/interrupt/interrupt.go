// Package interrupt is how a front end (the full CLI and the small front
// end alike) ends on Ctrl-C or SIGTERM: the work's context is cancelled,
// and the command exits with the status a shell reports for the signal.
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
// Caught then records.
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
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
