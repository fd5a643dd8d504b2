package mcp

import (
	"testing"
	"time"
)

// TestTheToolsReferencesDiscoveryFigures pins the figures seed 000 ("MCP
// Tools") gives, which the behaviour tests use by name (TestDiscoveryLimit
// passes for a limit of 3 or 5 as well): at most four servers discovered at
// once across the runtime, a 30 s negative cache per failed server, and
// the 12,000-character stderr window (TestStderrWindow). A pool given no
// TTL takes the 30 s one.
func TestTheToolsReferencesDiscoveryFigures(t *testing.T) {
	if MaxConcurrentDiscovery != 4 {
		t.Errorf("MaxConcurrentDiscovery = %d, want 4", MaxConcurrentDiscovery)
	}
	if NegativeTTL != 30*time.Second {
		t.Errorf("NegativeTTL = %v, want 30s", NegativeTTL)
	}
	if StderrWindow != 12000 {
		t.Errorf("StderrWindow = %d, want 12000", StderrWindow)
	}
	p := NewPool(Config{})
	if p.cfg.NegativeTTL != 30*time.Second || cap(p.cfg.Limiter.slots) != 4 || p.cfg.Limiter != runtimeLimiter() {
		t.Errorf("a pool's defaults: TTL %v, %d at once, shared limiter %v", p.cfg.NegativeTTL, cap(p.cfg.Limiter.slots), p.cfg.Limiter == runtimeLimiter())
	}
}
