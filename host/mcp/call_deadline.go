package mcp

import (
	"context"
	"errors"
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
	// closed is set by stop: the connection is gone, and a call that
	// starts after it must not arm the timer again (it would hold the
	// connection until a deadline minutes away).
	closed bool
}

// errConnectionClosed ends a call that starts after its connection was
// closed (it passed the adapter's alive check just before); the adapter
// answers it as it answers a call to a disconnected server.
var errConnectionClosed = errors.New("the MCP connection was closed")

// callContext is one call's context: the caller's, cancelled with the
// call's timeout as its cause when the deadline passes (context.Cause);
// Deadline reports that deadline and Err then reports DeadlineExceeded, as
// WithTimeoutCause's context does. mcp-go sends Err's text to the server
// as the reason of its notifications/cancelled, so a server can tell a
// timeout from a cancel. A context derived from it (context.WithCancel)
// reports Canceled on timeout: the cancel comes from the inner
// WithCancelCause; nothing on the call's path reads such a child's Err.
type callContext struct {
	context.Context // context.WithCancelCause of the caller's
	cancel          context.CancelCauseFunc
	deadline        time.Time
	timedOut        callTimedOut
}

func (c *callContext) Deadline() (time.Time, bool) { return c.deadline, true }

// Err is the inner context's, except DeadlineExceeded when the call's own
// timeout ended it (read only once the call has ended, so the happy path
// pays nothing more).
func (c *callContext) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == error(&c.timedOut) {
		return context.DeadlineExceeded
	}
	return err
}

// start returns the call's context; end must be called when the call is
// over, as WithTimeoutCause's cancel. On a closed set the context is
// already cancelled, with errConnectionClosed as its cause.
func (d *callDeadlines) start(ctx context.Context, timedOut callTimedOut) *callContext {
	c := &callContext{deadline: time.Now().Add(timedOut.after), timedOut: timedOut}
	c.Context, c.cancel = context.WithCancelCause(ctx)
	// When the caller's own deadline comes first it ends the call with
	// its own cause, as WithTimeoutCause's context would: no timer.
	pd, ok := ctx.Deadline()
	callerFirst := ok && pd.Before(c.deadline)
	if callerFirst {
		c.deadline = pd
	}
	d.mu.Lock()
	switch {
	case d.closed:
		c.cancel(errConnectionClosed)
	case callerFirst:
	default:
		if d.pending == nil {
			d.pending = make(map[*callContext]struct{})
		}
		d.pending[c] = struct{}{}
		if d.armed.IsZero() || c.deadline.Before(d.armed) {
			d.arm(c.deadline)
		}
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
// hold the connection until a deadline minutes away, and closes the set:
// a later start arms nothing. The calls still pending have failed with
// the connection (its client is closed).
func (d *callDeadlines) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
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
	if !next.IsZero() && !d.closed { // a closed connection's timer stays disarmed
		d.arm(next)
	}
	d.mu.Unlock()
	for _, c := range due {
		c.cancel(&c.timedOut)
	}
}
