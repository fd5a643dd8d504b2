package dispatch

import (
	"context"
	"errors"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

type ctxKey struct{}

// TestAuditContextIsATimeoutWithoutCancel: the audit context keeps the
// call's values, ignores its cancellation, and ends at its deadline
// whether or not anyone waited on Done before it.
func TestAuditContextIsATimeoutWithoutCancel(t *testing.T) {
	old := auditTimeout
	auditTimeout = 30 * time.Millisecond
	t.Cleanup(func() { auditTimeout = old })

	parent, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	cancel()
	c := newAuditContext(parent)
	if c.Value(ctxKey{}) != "v" {
		t.Error("the call's values are lost")
	}
	if d, ok := c.Deadline(); !ok || time.Until(d) > auditTimeout {
		t.Errorf("deadline %v, %v", d, ok)
	}
	if c.Err() != nil {
		t.Fatalf("the caller's cancellation reached the audit context: %v", c.Err())
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done did not close at the deadline")
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("Err after the deadline = %v", c.Err())
	}
	c.stop() // after the end: nothing changes
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("Err after stop = %v", c.Err())
	}

	// Past the deadline with no one having asked for Done.
	late := newAuditContext(context.Background())
	time.Sleep(2 * auditTimeout)
	if !errors.Is(late.Err(), context.DeadlineExceeded) {
		t.Errorf("Err past the deadline, Done never asked = %v", late.Err())
	}
	select {
	case <-late.Done():
	default:
		t.Error("Done is open though Err said the deadline passed")
	}

	// stop before the deadline: Canceled, Done closed, the timer released.
	s := newAuditContext(context.Background())
	done := s.Done()
	s.stop()
	select {
	case <-done:
	default:
		t.Error("Done is open after stop")
	}
	if !errors.Is(s.Err(), context.Canceled) {
		t.Errorf("Err after stop = %v", s.Err())
	}
}

// hungSink waits for its context like a store whose queue never moves.
type hungSink struct{}

func (hungSink) Append(ctx context.Context, _ runtime.Event) (uint64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

// TestHungAuditStoreEndsTheCall: a store that never takes the event ends
// the call at the audit timeout, its result withheld.
func TestHungAuditStoreEndsTheCall(t *testing.T) {
	old := auditTimeout
	auditTimeout = 50 * time.Millisecond
	t.Cleanup(func() { auditTimeout = old })
	h := newHarness(t)
	turn := h.turn(t, nil, nil, h.source(t, "fixture", autoMeta))
	turn.Events = hungSink{}
	start := time.Now()
	out := turn.Call(context.Background(), ToolCall{ID: "a", Name: "echo", Args: []byte(`{"text":"secret result"}`)})
	if out.Status != StatusAuditFailed || time.Since(start) > 5*time.Second {
		t.Fatalf("outcome %v after %v", out.Status, time.Since(start))
	}
}
