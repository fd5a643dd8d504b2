package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/netpolicy"
)

// mcpHost is the MCP part of a Host: the session's pool of connections
// and the standing of each declared server after the last turn.
type mcpHost struct {
	// MCPConfig, when set before the first catalog, adjusts the pool's
	// configuration. Tests use it to shorten the retry window and to give
	// the URL policy its test-only loopback hooks; nothing sets it from
	// agent.yaml, a manifest or the environment.
	MCPConfig func(*mcp.Config)

	mcpOnce      sync.Once
	mcpPool      *mcp.Pool
	mcpManifests mcp.Manifests
	mcpMu        sync.Mutex
	mcpStates    []mcp.State
}

// pool makes the session's pool on first use.
func (h *Host) pool() *mcp.Pool {
	h.mcpOnce.Do(func() {
		cfg := mcp.Config{
			StateDir: h.StateDir,
			Env:      plugins.PluginEnv(filepath.Join(h.StateDir, "runtime", "home")),
			CoreDir:  h.Core.Dir,
			OnURLDecision: func(server string, d netpolicy.Decision) {
				h.urlDecisionEvent(server, d)
			},
		}
		if h.MCPConfig != nil {
			h.MCPConfig(&cfg)
		}
		h.mcpPool = mcp.NewPool(cfg)
	})
	return h.mcpPool
}

// mcpTurn is what the pool resolves this turn against.
func (h *Host) mcpTurn() mcp.Turn {
	servers, errs := h.mcpManifests.Load(h.Core.MCPRoot)
	return mcp.Turn{Authority: h.Authority, Workspace: h.Workspace, Approvals: h.Approvals, Servers: servers, Errors: errs}
}

// addMCP resolves the core's MCP servers for this turn and adds the
// connected ones' sources; every server that is not connected is a
// warning naming why and when it is retried.
func (h *Host) addMCP(ctx context.Context, sources []catalog.Source, warnings []string) ([]catalog.Source, []string) {
	if h.Core.MCPRoot == "" {
		return sources, warnings
	}
	r := h.pool().Resolve(ctx, h.mcpTurn())
	h.mcpMu.Lock()
	prev := h.mcpStates
	h.mcpStates = r.States
	h.mcpMu.Unlock()
	h.mcpStateEvents(prev, r.States)
	for _, s := range r.States {
		warnings = append(warnings, mcpWarnings(s)...)
	}
	return append(sources, r.Sources...), warnings
}

func mcpWarnings(s mcp.State) []string {
	var out []string
	switch s.Status {
	case mcp.StatusDenied:
		out = append(out, fmt.Sprintf("MCP server %s is not connected: %s", s.Server, s.Diagnostic))
	case mcp.StatusFailed:
		w := fmt.Sprintf("MCP server %s failed: %s", s.Server, s.Diagnostic)
		if !s.RetryAt.IsZero() {
			w += "; retried after " + s.RetryAt.Format(time.TimeOnly)
		}
		out = append(out, w)
	}
	return append(out, s.Refused...)
}

// MCPStates are the declared servers' standings after the last catalog.
func (h *Host) MCPStates() []mcp.State {
	h.mcpMu.Lock()
	defer h.mcpMu.Unlock()
	return append([]mcp.State(nil), h.mcpStates...)
}

// TestMCP connects the declared server now (through its connect gate,
// whatever its retry window says) and returns what it found.
func (h *Host) TestMCP(ctx context.Context, server string) (mcp.State, error) {
	if h.Core.MCPRoot == "" {
		return mcp.State{}, fmt.Errorf("%s declares no slots.mcp, so there are no MCP servers", h.Core.File)
	}
	st, ok := h.pool().Test(ctx, h.mcpTurn(), server)
	if !ok {
		return mcp.State{}, fmt.Errorf("no MCP server %q is declared in %s (want %s.yaml there)", server, h.Core.MCPRoot, server)
	}
	return st, nil
}

// urlDecisionEvent records an MCP HTTP request's URL-policy verdict: the
// origin and addresses only, never path, query or credentials.
func (h *Host) urlDecisionEvent(server string, d netpolicy.Decision) {
	store, err := h.Store()
	if err != nil {
		return
	}
	addrs := make([]string, len(d.Addrs))
	for i, a := range d.Addrs {
		addrs[i] = a.String()
	}
	data, err := json.Marshal(map[string]any{
		"server": server, "phase": "request", "hop": d.Phase, "origin": d.Origin,
		"allowed": d.Allowed, "class": d.Class, "reason": d.Reason, "addresses": addrs,
	})
	if err != nil {
		return
	}
	_ = store.Submit(context.Background(), runtime.Event{Kind: "mcp.url_decision", Session: h.Authority.Session, Data: data}, nil)
}

// mcpStateEvents records each server whose standing changed since the
// last turn as an mcp.connect event: connected, denied, failed (with the
// redacted diagnostic) or disabled.
func (h *Host) mcpStateEvents(prev, cur []mcp.State) {
	before := make(map[string]mcp.State, len(prev))
	for _, s := range prev {
		before[s.Server] = s
	}
	var store *runtime.Store
	for _, s := range cur {
		if b, ok := before[s.Server]; ok && b.Status == s.Status && b.Diagnostic == s.Diagnostic {
			continue
		}
		if store == nil {
			var err error
			if store, err = h.Store(); err != nil {
				return
			}
		}
		data, err := json.Marshal(map[string]any{
			"server": s.Server, "transport": s.Transport, "status": s.Status,
			"diagnostic": s.Diagnostic, "tools": len(s.Tools), "refused": len(s.Refused),
		})
		if err != nil {
			continue
		}
		_ = store.Submit(context.Background(), runtime.Event{Kind: "mcp.connect", Session: h.Authority.Session, Data: data}, nil)
	}
}

// closeMCP closes every MCP connection and kills every stdio server.
func (h *Host) closeMCP() {
	if h.mcpPool != nil {
		h.mcpPool.Close()
	}
}
