package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/netpolicy"
)

// mcpHost is what the host's sessions share of MCP: the manifests'
// cache and the pools' configuration.
type mcpHost struct {
	// MCPConfig, when set before the first catalog, adjusts the pools'
	// configuration. Tests use it to shorten the retry window and to give
	// the URL policy its test-only loopback hooks; nothing sets it from
	// agent.yaml, a manifest or the environment.
	MCPConfig func(*mcp.Config)

	mcpManifests mcp.Manifests
	// mcpPrivate are the operator's private-address allowances, from the
	// flag and the host configuration file.
	mcpPrivate []mcp.PrivateAllowance
}

// loadPrivateMCP gathers the operator's private-address allowances and
// protects the configuration file's directory from the agent's writes.
// A file that is unsafe or malformed fails the host: it is never read
// as no allowance or half of one.
func (h *Host) loadPrivateMCP(opts Options) error {
	h.mcpPrivate = append([]mcp.PrivateAllowance(nil), opts.MCPPrivate...)
	if opts.MCPPrivateFile == "" {
		return nil
	}
	h.Workspace.Config = filepath.Dir(opts.MCPPrivateFile)
	fromFile, err := mcp.LoadPrivateConfig(opts.MCPPrivateFile, h.Workspace.Root)
	if err != nil {
		return err
	}
	h.mcpPrivate = append(h.mcpPrivate, fromFile...)
	return nil
}

// sessionMCP is one session's pool of connections, bound to its
// authority, and the standing of each declared server after its last
// turn.
type sessionMCP struct {
	mu     sync.Mutex
	pool   *mcp.Pool
	states []mcp.State
}

func (m *sessionMCP) snapshot() []mcp.State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]mcp.State(nil), m.states...)
}

// close closes the pool; the session's next turn makes a new one.
func (m *sessionMCP) close() {
	m.mu.Lock()
	p := m.pool
	m.pool = nil
	m.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

// pool is s's pool, made on first use.
func (h *Host) pool(s *Session) *mcp.Pool {
	s.mcp.mu.Lock()
	defer s.mcp.mu.Unlock()
	if s.mcp.pool == nil {
		id := s.ID()
		cfg := mcp.Config{
			StateDir:    h.StateDir,
			Env:         plugins.PluginEnv(filepath.Join(h.StateDir, "runtime", "home")),
			CoreDir:     h.Core.Dir,
			CallTimeout: h.callTimeout,
			Sandbox:     h.Sandbox,
			Private:     h.mcpPrivate,
			Command:     h.Core.Command,
			OnURLDecision: func(server string, d netpolicy.Decision) {
				h.urlDecisionEvent(id, server, d)
			},
			OnElicitation: func(server string, e mcp.Elicitation) {
				h.elicitationEvent(id, server, e)
			},
			HostSecrets: h.hostCredentials,
		}
		if h.MCPConfig != nil {
			h.MCPConfig(&cfg)
		}
		s.mcp.pool = mcp.NewPool(cfg)
	}
	return s.mcp.pool
}

// mcpTurn is what s's pool resolves this turn against.
func (h *Host) mcpTurn(s *Session) mcp.Turn {
	servers, errs := h.mcpManifests.Load(h.Core.MCPRoot)
	return mcp.Turn{Authority: s.authority, Workspace: h.Workspace, Approvals: h.Approvals, Servers: servers, Errors: errs}
}

// addMCP resolves the core's MCP servers for s's turn and adds the
// connected ones' sources; every server that is not connected is a
// warning naming why and when it is retried. With a tool named, only the
// servers that can offer it are resolved; the others keep their standing.
func (h *Host) addMCP(ctx context.Context, s *Session, o TurnOptions, sources []catalog.Source, warnings []string) ([]catalog.Source, []string) {
	if h.Core.MCPRoot == "" {
		return sources, warnings
	}
	t := h.mcpTurn(s)
	if o.Approvals != nil {
		t.Approvals = o.Approvals
	}
	var r mcp.Resolution
	want := func(string) bool { return true }
	if o.Tool == "" {
		r = h.pool(s).Resolve(ctx, t)
	} else {
		want = func(server string) bool { return mcp.MayOffer(server, o.Tool) }
		r = h.pool(s).ResolveFor(ctx, t, want)
	}
	s.mcp.mu.Lock()
	prev := s.mcp.states
	states := slices.Clone(r.States)
	for _, st := range prev {
		if !want(st.Server) {
			states = append(states, st)
		}
	}
	slices.SortFunc(states, func(a, b mcp.State) int { return strings.Compare(a.Server, b.Server) })
	s.mcp.states = states
	s.mcp.mu.Unlock()
	h.mcpStateEvents(ctx, o.DurableEvents, s.ID(), prev, r.States)
	for _, st := range r.States {
		warnings = append(warnings, mcpWarnings(st)...)
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
	out = append(out, s.Refused...)
	for _, q := range s.Quarantined {
		out = append(out, q.Diagnostic)
	}
	return out
}

// MCPStates are the current session's servers' standings after its last
// catalog.
func (h *Host) MCPStates() []mcp.State { return h.Session().MCPStates() }

// TestMCP connects a declared server in the current session now.
func (h *Host) TestMCP(ctx context.Context, server string) (mcp.State, error) {
	return h.Session().TestMCP(ctx, server)
}

func (h *Host) testMCP(ctx context.Context, s *Session, server string, approvals *approval.Resolver) (mcp.State, error) {
	if h.Core.MCPRoot == "" {
		return mcp.State{}, fmt.Errorf("%s declares no slots.mcp, so there are no MCP servers", h.Core.File)
	}
	t := h.mcpTurn(s)
	if approvals != nil {
		t.Approvals = approvals
	}
	st, ok := h.pool(s).Test(ctx, t, server)
	if !ok {
		return mcp.State{}, fmt.Errorf("no MCP server %q is declared in %s (want %s.yaml there)", server, h.Core.MCPRoot, server)
	}
	// The same mcp.connect event a turn writes: a test connects (or is
	// refused) as much as a turn does. The operator's command answers
	// only once it is on disk, so an `audit` run right after shows it.
	h.mcpEvent(ctx, mcpDurable, "mcp.connect", s.ID(), mcpConnectFields(st))
	return st, nil
}

// urlDecisionEvent records an MCP HTTP request's URL-policy verdict: the
// origin and addresses only, never path, query or credentials.
func (h *Host) urlDecisionEvent(session, server string, d netpolicy.Decision) {
	addrs := make([]string, len(d.Addrs))
	for i, a := range d.Addrs {
		addrs[i] = a.String()
	}
	ev := map[string]any{
		"server": server, "phase": "request", "hop": d.Phase, "origin": d.Origin,
		"allowed": d.Allowed, "class": d.Class, "reason": d.Reason, "addresses": addrs,
	}
	// Every decision of a server the operator allowed a private address
	// says so, and which request passed only by it.
	var allowances []string
	for _, a := range h.mcpPrivate {
		if a.Server == server {
			allowances = append(allowances, a.Addr.String()+" ("+a.Source+")")
		}
	}
	if len(allowances) > 0 {
		ev["operator_private_allowance"] = allowances
	}
	if d.Private != "" {
		ev["allowed_by_operator"] = d.Private
	}
	h.mcpEvent(context.Background(), mcpQueued, "mcp.url_decision", session, ev)
}

// Whether mcpEvent waits for its event's commit.
const (
	mcpQueued  = false // a turn's events: the connection goes on meanwhile
	mcpDurable = true  // an operator's command answers once it is on disk
)

// mcpEvent records one event of the MCP client in the audit trail, and
// when wait is mcpDurable returns once it is committed; one that cannot be
// recorded is dropped, as the connection goes on.
func (h *Host) mcpEvent(ctx context.Context, wait bool, kind, session string, fields map[string]any) {
	store, err := h.Store()
	if err != nil {
		return
	}
	data, err := json.Marshal(fields)
	if err != nil {
		return
	}
	ev := runtime.Event{Kind: kind, Session: session, Data: data}
	if wait {
		_, _ = store.Append(context.WithoutCancel(ctx), ev)
		return
	}
	_ = store.Submit(ctx, ev, nil)
}

// elicitationEvent records what became of a server's form as an
// mcp.elicitation event: the operator sees a form declined unasked, and
// the flag that would have let it be asked.
func (h *Host) elicitationEvent(session, server string, e mcp.Elicitation) {
	h.mcpEvent(context.Background(), mcpQueued, "mcp.elicitation", session, map[string]any{"server": server, "action": e.Action, "reason": e.Reason})
}

func mcpConnectFields(s mcp.State) map[string]any {
	return map[string]any{
		"server": s.Server, "transport": s.Transport, "status": s.Status,
		"diagnostic": s.Diagnostic, "tools": len(s.Tools), "refused": len(s.Refused),
	}
}

// mcpStateEvents records each server whose standing changed since the
// last turn as an mcp.connect event: connected, denied, failed (with the
// redacted diagnostic) or disabled.
func (h *Host) mcpStateEvents(ctx context.Context, wait bool, session string, prev, cur []mcp.State) {
	before := make(map[string]mcp.State, len(prev))
	for _, s := range prev {
		before[s.Server] = s
	}
	for _, s := range cur {
		if b, ok := before[s.Server]; ok && b.Status == s.Status && b.Diagnostic == s.Diagnostic {
			continue
		}
		h.mcpEvent(context.WithoutCancel(ctx), wait, "mcp.connect", session, mcpConnectFields(s))
	}
}
