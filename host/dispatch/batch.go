package dispatch

import (
	"context"
	"sync"
)

// Batch runs one model batch (seed 004) and returns the outcomes in the
// order of calls. The batch runs in order: each call is admitted
// (precheck, approval) only after every earlier call whose resource keys
// conflict with its own has finished, so its precheck and its effect see
// theirs; admissions happen one at a time, in order, so nobody is asked
// about two calls at once. An admitted call starts at once and runs beside
// the earlier calls it does not conflict with. So a write waits for every
// earlier call on its key, a read after a write of the same path sees the
// write, and two writes of different paths overlap only once both were
// approved.
func (t *Turn) Batch(ctx context.Context, calls []ToolCall) []Outcome {
	out := make([]Outcome, len(calls))
	preps := make([]*prepared, len(calls))
	for i, c := range calls {
		preps[i] = t.prepare(c)
	}
	done := make([]chan struct{}, len(calls))
	var wg sync.WaitGroup
	for i, p := range preps {
		done[i] = make(chan struct{})
		for j := range i {
			if p.conflictsWith(preps[j]) {
				<-done[j]
			}
		}
		a := t.admit(ctx, p)
		if a.done {
			out[i] = a.out
			close(done[i])
			continue
		}
		wg.Go(func() {
			defer close(done[i])
			out[i] = t.execute(ctx, p, a)
		})
	}
	wg.Wait()
	return out
}
