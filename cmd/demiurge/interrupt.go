package main

import (
	"context"

	"demiurge.dev/cmd/internal/interrupt"
)

// Exit statuses after a signal, as a shell reports them: 128 + signal.
const (
	exitInterrupted = interrupt.Interrupted // SIGINT (Ctrl-C)
	exitTerminated  = interrupt.Terminated  // SIGTERM
)

// caughtSignal is the exit status owed to the first SIGINT or SIGTERM a
// command's interruptContext caught, 0 while none was.
var caughtSignal = &interrupt.Caught

// interruptContext is parent cancelled at the first SIGINT or SIGTERM.
// run then exits 130 (or 143), without printing the "context canceled"
// that the cancelled work reports.
func interruptContext(parent context.Context) (context.Context, context.CancelFunc) {
	return interrupt.Context(parent)
}
