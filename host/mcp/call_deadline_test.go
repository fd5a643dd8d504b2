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

// TestCallDeadlinesStopAndStartAgain: a stopped timer (a closed
// connection) is armed again by the next call.
func TestCallDeadlinesStopAndStartAgain(t *testing.T) {
	var d callDeadlines
	first := d.start(context.Background(), callTimedOut{tool: "first", after: 20 * time.Millisecond})
	d.stop()
	d.end(first)
	// Past the stopped timer's deadline: the next call's is later, and
	// must arm the timer all the same.
	time.Sleep(40 * time.Millisecond)
	again := d.start(context.Background(), callTimedOut{tool: "again", after: 30 * time.Millisecond})
	defer d.end(again)
	waitDone(t, again)
	if c := context.Cause(again); !errors.Is(c, &again.timedOut) {
		t.Fatalf("cause %v", c)
	}
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
