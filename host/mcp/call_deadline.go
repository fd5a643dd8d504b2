package mcp

import (
	"context"
	"sync"
	"time"
)

// callDeadlines ends the calls of one connection that outlive the host's
// call timeout, with one timer for all of them. context.WithTimeoutCause
// gave every call a timer of its own, set and stopped on every call (about
// a microsecond and five allocations) for a deadline minutes away that
// almost never comes. Here a call is put in a set and taken out; the one
// timer is armed for the earliest deadline and, since calls share the
// timeout, is left alone by every later call.
type callDeadlines struct {
	mu      sync.Mutex
	pending map[*callContext]struct{}
	timer   *time.Timer
	armed   time.Time // when the timer fires; zero when it is not armed
}

// callContext is one call's context: the caller's, cancelled with the
// call's timeout as its cause when the deadline passes (context.Cause);
// Deadline reports that deadline, as WithTimeoutCause's context does. Its
// Err on timeout is Canceled, where WithTimeoutCause's was
// DeadlineExceeded: the adapter reads the cause.
type callContext struct {
	context.Context // context.WithCancelCause of the caller's
	cancel          context.CancelCauseFunc
	deadline        time.Time
	timedOut        callTimedOut
}

func (c *callContext) Deadline() (time.Time, bool) { return c.deadline, true }

// start returns the call's context; end must be called when the call is
// over, as WithTimeoutCause's cancel.
func (d *callDeadlines) start(ctx context.Context, timedOut callTimedOut) *callContext {
	c := &callContext{deadline: time.Now().Add(timedOut.after), timedOut: timedOut}
	c.Context, c.cancel = context.WithCancelCause(ctx)
	if pd, ok := ctx.Deadline(); ok && pd.Before(c.deadline) {
		// The caller's own deadline comes first and ends the call with
		// its own cause, as WithTimeoutCause's context would.
		c.deadline = pd
		return c
	}
	d.mu.Lock()
	if d.pending == nil {
		d.pending = make(map[*callContext]struct{})
	}
	d.pending[c] = struct{}{}
	if d.armed.IsZero() || c.deadline.Before(d.armed) {
		d.arm(c.deadline)
	}
	d.mu.Unlock()
	return c
}

// end releases the call's context.
func (d *callDeadlines) end(c *callContext) {
	d.mu.Lock()
	delete(d.pending, c)
	d.mu.Unlock()
	c.cancel(nil)
}

// arm sets the timer to fire at at; d.mu is held.
func (d *callDeadlines) arm(at time.Time) {
	d.armed = at
	if d.timer == nil {
		d.timer = time.AfterFunc(time.Until(at), d.fire)
		return
	}
	d.timer.Reset(time.Until(at))
}

// stop disarms the timer of a closed connection, which would otherwise
// hold the connection until a deadline minutes away. The calls still
// pending have failed with the connection (its client is closed).
func (d *callDeadlines) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
	}
	d.armed = time.Time{}
}

// fire ends every call whose deadline has passed and arms the timer for
// the earliest one left.
func (d *callDeadlines) fire() {
	now := time.Now()
	var due []*callContext
	d.mu.Lock()
	d.armed = time.Time{}
	var next time.Time
	for c := range d.pending {
		switch {
		case !now.Before(c.deadline):
			due = append(due, c)
			delete(d.pending, c)
		case next.IsZero() || c.deadline.Before(next):
			next = c.deadline
		}
	}
	if !next.IsZero() {
		d.arm(next)
	}
	d.mu.Unlock()
	for _, c := range due {
		c.cancel(&c.timedOut)
	}
}
