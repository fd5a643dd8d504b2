package dispatch

import (
	"context"
	"sync"
)

// Batch runs one model batch. Results come back in the order of calls.
// Calls run in order, except that consecutive calls that only read and need
// no approval run together: readers never conflict. Anything else (a
// write, a prompt, a refusal) runs alone, after everything before it.
func (t *Turn) Batch(ctx context.Context, calls []ToolCall) []Outcome {
	out := make([]Outcome, len(calls))
	preps := make([]*prepared, len(calls))
	for i, c := range calls {
		preps[i] = t.prepare(c)
	}
	var wave []int
	flush := func() {
		if len(wave) == 1 {
			out[wave[0]] = t.run(ctx, preps[wave[0]])
		} else if len(wave) > 1 {
			var wg sync.WaitGroup
			for _, i := range wave {
				wg.Go(func() { out[i] = t.run(ctx, preps[i]) })
			}
			wg.Wait()
		}
		wave = wave[:0]
	}
	for i, p := range preps {
		if p.concurrent() {
			wave = append(wave, i)
			continue
		}
		flush()
		out[i] = t.run(ctx, p)
	}
	flush()
	return out
}
