package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// caughtSignal is the exit status owed to the first SIGINT or SIGTERM,
// 0 while none was: as the full CLI's (cmd/demiurge interrupt.go), 130
// or 143.
var caughtSignal atomic.Int32

// interruptContext is parent cancelled at the first SIGINT or SIGTERM.
func interruptContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			code := int32(130)
			if s == syscall.SIGTERM {
				code = 143
			}
			caughtSignal.CompareAndSwap(0, code)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
