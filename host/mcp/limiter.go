package mcp

import (
	"context"
	"sync"
)

// MaxConcurrentDiscovery is how many servers are discovered at once across
// the whole runtime, whatever the number of sessions.
const MaxConcurrentDiscovery = 4

// Limiter bounds concurrent discoveries.
type Limiter struct{ slots chan struct{} }

// NewLimiter allows n discoveries at once.
func NewLimiter(n int) *Limiter { return &Limiter{slots: make(chan struct{}, n)} }

// runtimeLimiter is shared by every pool of the process: the bound is
// runtime-wide, not per session.
var runtimeLimiter = sync.OnceValue(func() *Limiter { return NewLimiter(MaxConcurrentDiscovery) })

func (l *Limiter) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *Limiter) release() { <-l.slots }
