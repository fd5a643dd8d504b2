package agents

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"demiurge.dev/host/providers"
)

// errBudget ends a child's turn when its output tokens are spent.
var errBudget = errors.New("the child's output-token budget is spent")

// budgetProvider counts a child's output tokens across its steps and
// refuses the step after the budget is spent; each request asks for no
// more than what is left.
type budgetProvider struct {
	providers.Provider
	limit int64
	used  atomic.Int64
	hit   atomic.Bool
	// first is told when the child's first model request starts (the
	// spawn benchmark).
	first func()
	began atomic.Bool
}

func (b *budgetProvider) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (providers.Reply, error) {
	left := b.limit - b.used.Load()
	if left <= 0 {
		b.hit.Store(true)
		return providers.Reply{}, fmt.Errorf("%w (%d output tokens)", errBudget, b.limit)
	}
	if req.MaxOutputTokens == 0 || int64(req.MaxOutputTokens) > left {
		req.MaxOutputTokens = int(left)
	}
	if b.first != nil && b.began.CompareAndSwap(false, true) {
		b.first()
	}
	reply, err := b.Provider.Stream(ctx, req, onDelta)
	b.used.Add(reply.Usage.OutputTokens)
	return reply, err
}
