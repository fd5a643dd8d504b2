package mcp

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestCallDeadlinesEndEachCallAtItsOwn: calls with different timeouts on
// one connection each end at their own deadline with their own cause; a
// call that ended in time is never given the timeout as its cause; a
// caller's earlier deadline ends the call with the caller's cause.
func TestCallDeadlinesEndEachCallAtItsOwn(t *testing.T) {
	var d callDeadlines
	bg := context.Background()
	long := d.start(bg, callTimedOut{tool: "long", after: 400 * time.Millisecond})
	short := d.start(bg, callTimedOut{tool: "short", after: 50 * time.Millisecond})
	done := d.start(bg, callTimedOut{tool: "done", after: 50 * time.Millisecond})
	d.end(done)
	start := time.Now()
	waitDone(t, short)
	if took := time.Since(start); took > 300*time.Millisecond {
		t.Fatalf("the short call ended after %s", took)
	}
	if c := context.Cause(short); !errors.Is(c, &short.timedOut) {
		t.Fatalf("short: cause %v", c)
	}
	if long.Err() != nil {
		t.Fatal("the long call ended with the short one")
	}
	if c := context.Cause(done); errors.Is(c, &done.timedOut) || !errors.Is(c, context.Canceled) {
		t.Fatalf("a call ended in time has cause %v", c)
	}
	waitDone(t, long)
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("the long call ended after %s", took)
	}
	if c := context.Cause(long); !errors.Is(c, &long.timedOut) {
		t.Fatalf("long: cause %v", c)
	}
	d.end(short)
	d.end(long)
	if dl, ok := long.Deadline(); !ok || dl.IsZero() {
		t.Fatal("no deadline")
	}

	own := errors.New("the caller's deadline")
	parent, cancel := context.WithTimeoutCause(bg, 30*time.Millisecond, own)
	defer cancel()
	first := d.start(parent, callTimedOut{tool: "first", after: time.Minute})
	defer d.end(first)
	waitDone(t, first)
	if c := context.Cause(first); c != own {
		t.Fatalf("under an earlier caller's deadline: cause %v", c)
	}
	if dl, _ := parent.Deadline(); !first.deadline.Equal(dl) {
		t.Fatal("the call's deadline is not the caller's earlier one")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.pending) != 0 {
		t.Fatalf("%d calls left pending", len(d.pending))
	}
}

// TestCallDeadlinesStopClosesTheSet: a stopped set (a closed connection)
// arms nothing again: a call that starts after stop (it passed the
// adapter's alive check just before the connection closed) is ended at
// once with errConnectionClosed and leaves no timer holding the
// connection; a fire already under way when stop ran does not re-arm for
// the calls still pending.
func TestCallDeadlinesStopClosesTheSet(t *testing.T) {
	var d callDeadlines
	bg := context.Background()
	due := d.start(bg, callTimedOut{tool: "due", after: time.Millisecond})
	pending := d.start(bg, callTimedOut{tool: "pending", after: time.Hour})
	defer d.end(pending)
	d.stop()
	if d.timer.Stop() {
		t.Fatal("stop left the timer armed")
	}
	time.Sleep(5 * time.Millisecond)
	d.fire() // as if the timer had fired just before stop
	if c := context.Cause(due); !errors.Is(c, &due.timedOut) {
		t.Fatalf("the overdue call: cause %v", c)
	}
	d.end(due)
	if d.timer.Stop() || !d.armed.IsZero() {
		t.Fatal("a fire after stop armed the timer again")
	}

	for _, parent := range []context.Context{bg, shortDeadline(t)} {
		again := d.start(parent, callTimedOut{tool: "again", after: DefaultCallTimeout})
		select {
		case <-again.Done():
		default:
			t.Fatal("a call started on a closed set is not ended")
		}
		if c := context.Cause(again); c != errConnectionClosed || again.Err() != context.Canceled {
			t.Fatalf("a call started on a closed set: cause %v, err %v", c, again.Err())
		}
		d.end(again)
	}
	if d.timer.Stop() || !d.armed.IsZero() {
		t.Fatal("a call started after stop armed the timer")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.pending[pending]; !ok || len(d.pending) != 1 {
		t.Fatalf("pending after stop: %d calls", len(d.pending))
	}
}

// TestCallContextErrSaysWhyItEnded: a call ended by its deadline reports
// DeadlineExceeded with its timeout as the cause, as WithTimeoutCause's
// context did (mcp-go tells the server Err's text); a call its caller
// cancelled reports Canceled even when its deadline passes afterwards; a
// call ended in time reports Canceled; a context that only wraps the
// call's (a tracer's span) reports the same.
func TestCallContextErrSaysWhyItEnded(t *testing.T) {
	var d callDeadlines
	bg := context.Background()
	parent, cancelParent := context.WithCancel(bg)
	timed := d.start(bg, callTimedOut{tool: "timed", after: 20 * time.Millisecond})
	cancelled := d.start(parent, callTimedOut{tool: "cancelled", after: 20 * time.Millisecond})
	inTime := d.start(bg, callTimedOut{tool: "inTime", after: 20 * time.Millisecond})
	if timed.Err() != nil {
		t.Fatalf("a running call: err %v", timed.Err())
	}
	cancelParent()
	d.end(inTime)
	waitDone(t, timed)
	if err := timed.Err(); err != context.DeadlineExceeded {
		t.Fatalf("timed out: err %v", err)
	}
	if c := context.Cause(timed); c != error(&timed.timedOut) {
		t.Fatalf("timed out: cause %v", c)
	}
	type spanKey struct{}
	if err := context.WithValue(timed, spanKey{}, 1).Err(); err != context.DeadlineExceeded {
		t.Fatalf("a wrapped timed-out call: err %v", err)
	}
	if cancelled.Err() != context.Canceled || inTime.Err() != context.Canceled {
		t.Fatalf("cancelled: %v, ended in time: %v", cancelled.Err(), inTime.Err())
	}
	d.end(timed)
	d.end(cancelled)
}

// shortDeadline is a caller's context whose deadline comes before any
// call timeout.
func shortDeadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func waitDone(t *testing.T, c *callContext) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("the call %s never ended", c.timedOut.tool)
	}
}

func BenchmarkCallContext(b *testing.B) {
	bg := context.Background()
	b.Run("WithTimeoutCause", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			timedOut := &callTimedOut{server: "s", tool: "t", after: DefaultCallTimeout}
			ctx, cancel := context.WithTimeoutCause(bg, DefaultCallTimeout, timedOut)
			<-closedOr(ctx.Done())
			cancel()
		}
	})
	b.Run("callDeadlines", func(b *testing.B) {
		var d callDeadlines
		b.ReportAllocs()
		for b.Loop() {
			c := d.start(bg, callTimedOut{server: "s", tool: "t", after: DefaultCallTimeout})
			<-closedOr(c.Done())
			d.end(c)
		}
	})
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// closedOr stands for mcp-go's select on the call's Done (never ready).
func closedOr(done <-chan struct{}) <-chan struct{} {
	select {
	case <-done:
	default:
	}
	return closed
}
