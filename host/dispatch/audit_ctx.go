package dispatch

import (
	"context"
	"sync"
	"time"
)

// auditTimeout bounds how long a call's audit append may wait for the
// store (a hung store must not hang the call); a variable for the tests.
var auditTimeout = 10 * time.Second

// auditContext is the audit append's context: the call's values without
// its cancellation (the record is written even when the caller gave up),
// with a deadline auditTimeout away. Its timer starts only when someone
// waits on Done: an append that finds room in the store's queue at once
// never does, and context.WithTimeout's timer on every call was about two
// microseconds and four allocations of each call's own work.
type auditContext struct {
	parent   context.Context // for Value only
	deadline time.Time
	mu       sync.Mutex
	done     chan struct{} // made by the first Done
	timer    *time.Timer
	err      error
}

func newAuditContext(ctx context.Context) *auditContext {
	return &auditContext{parent: ctx, deadline: time.Now().Add(auditTimeout)}
}

func (c *auditContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *auditContext) Value(key any) any { return c.parent.Value(key) }

func (c *auditContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		} else {
			c.timer = time.AfterFunc(time.Until(c.deadline), func() { c.end(context.DeadlineExceeded) })
		}
	}
	return c.done
}

// Err is DeadlineExceeded once the deadline has passed, whether or not
// anyone waited on Done; Canceled after stop.
func (c *auditContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && c.timer == nil && !time.Now().Before(c.deadline) {
		c.endLocked(context.DeadlineExceeded)
	}
	return c.err
}

// stop is the cancel function: it releases the timer, and Done (if made)
// closes, as after context.WithTimeout's cancel.
func (c *auditContext) stop() { c.end(context.Canceled) }

func (c *auditContext) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(err)
}

func (c *auditContext) endLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.done != nil {
		close(c.done)
	}
}
