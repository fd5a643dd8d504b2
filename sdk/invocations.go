package sdk

import (
	"context"
	"sync"

	"demiurge.dev/shared/toolsetv1"
)

// Invocations are the calls a Toolset server is running, so that Cancel
// can reach one and Health can count them. Serve uses it; a toolset that
// implements the Toolset service itself (the authored-tool runtime, whose
// tools come from the core) uses it too. The zero value is ready to use.
type Invocations struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc
}

// Track records a started call; false if a call with that id is running.
func (v *Invocations) Track(id string, cancel context.CancelFunc) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, dup := v.running[id]; dup {
		return false
	}
	if v.running == nil {
		v.running = map[string]context.CancelFunc{}
	}
	v.running[id] = cancel
	return true
}

// Untrack forgets a call that ended.
func (v *Invocations) Untrack(id string) {
	v.mu.Lock()
	delete(v.running, id)
	v.mu.Unlock()
}

// Cancel answers the Cancel RPC: it cancels the named call if it runs.
func (v *Invocations) Cancel(req *toolsetv1.CancelRequest) *toolsetv1.CancelResponse {
	v.mu.Lock()
	cancel, ok := v.running[req.GetInvocationId()]
	v.mu.Unlock()
	if ok {
		cancel()
	}
	return &toolsetv1.CancelResponse{Found: ok}
}

// Health answers the Health RPC with the number of running calls.
func (v *Invocations) Health() *toolsetv1.HealthResponse {
	v.mu.Lock()
	n := len(v.running)
	v.mu.Unlock()
	return &toolsetv1.HealthResponse{Status: "ok", ActiveInvocations: int32(n)}
}
