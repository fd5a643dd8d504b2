package plugins

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// lateContext is a context whose deadline has passed before its own timer
// said so, as gRPC's timer can see it first.
type lateContext struct{ context.Context }

func (lateContext) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// A stream gRPC ended at the caller's deadline is a cancelled call, not a
// plugin's failure, even while the context does not know it yet.
func TestCallErrorAtTheDeadlineIsCancellation(t *testing.T) {
	var m Manager
	err := m.callError(lateContext{context.Background()}, nil, "fixture", errors.New("rpc error: code = DeadlineExceeded"))
	if err == nil || !strings.Contains(err.Error(), "call cancelled") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}
