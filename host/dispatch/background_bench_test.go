package dispatch

import (
	"context"
	"testing"

	"demiurge.dev/host/approval"
)

// BenchmarkBackgroundCallReturns is the time a background call takes to
// answer with its task id: the whole path up to approval, the task record
// made durable, and the call's audit event. The task itself (one line of
// output) runs on after the call returns.
func BenchmarkBackgroundCallReturns(b *testing.B) {
	h := newHarness(b)
	turn, tasks := h.backgroundTurn(b, &answer{a: approval.AllowOnce}, nil)
	turn.MaxCalls = 1 << 30
	call := ToolCall{ID: "bg", Name: "stream", Args: []byte(`{"command":"make","background":true,"lines":1}`)}
	for b.Loop() {
		if out := turn.Call(context.Background(), call); !out.OK() {
			b.Fatalf("%s %q", out.Status, out.Views.Model.String())
		}
	}
	b.StopTimer()
	tasks.WaitAll(context.Background())
}
