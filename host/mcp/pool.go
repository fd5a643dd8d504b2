package mcp

import (
	"context"
	"demiurge.dev/host/sandboxing"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
	"demiurge.dev/shared/fileid"
	"demiurge.dev/shared/netpolicy"
)

// NegativeTTL is how long a failed server is left alone before the next
// turn tries it again.
const NegativeTTL = 30 * time.Second

// Status is where a server stands after a turn's resolution.
type Status string

const (
	StatusConnected Status = "connected"
	StatusDenied    Status = "denied"
	StatusFailed    Status = "failed"
	StatusDisabled  Status = "disabled"
)

// State is one server's standing, for `demiurge mcp list` and warnings.
type State struct {
	Server     string    `json:"server"`
	File       string    `json:"file,omitempty"`
	Transport  string    `json:"transport,omitempty"`
	Status     Status    `json:"status"`
	Diagnostic string    `json:"diagnostic,omitempty"`
	RetryAt    time.Time `json:"retry_at,omitzero"`
	Tools      []string  `json:"tools,omitempty"`
	// Refused are the diagnostics of tools left out (duplicates, names
	// that collide once converted, unusable schemas).
	Refused []string `json:"refused,omitempty"`
	// Quarantined are the tools whose definitions changed since they were
	// pinned, or that are new since, until mcp review accepts them
	// (pins.go).
	Quarantined []Quarantined `json:"quarantined,omitempty"`
	Protocol    string        `json:"protocol_version,omitempty"`
	ServerInfo  string        `json:"server_info,omitempty"`
}

// Config is what a Pool needs from its host.
type Config struct {
	// StateDir holds logs/mcp-stderr.log.
	StateDir string
	// Env is the allowlisted base environment of stdio servers (the
	// plugins' one); never nil in effect, nil is taken as empty.
	Env []string
	// CoreDir anchors relative command paths.
	CoreDir string
	// NegativeTTL replaces NegativeTTL (tests shorten it).
	NegativeTTL time.Duration
	// Limiter bounds concurrent discovery; nil is the runtime-wide one.
	Limiter *Limiter
	// Net configures the URL policy of HTTP servers. Its Resolver and
	// AllowLoopbackForTests are test-only hooks: nothing sets them from
	// agent.yaml, a manifest or the environment.
	Net netpolicy.Options
	// OnURLDecision receives each HTTP request's policy verdict, for the
	// mcp.url_decision audit event. It must not block.
	OnURLDecision func(server string, d netpolicy.Decision)
	// OnElicitation receives what became of each form a server sent, for
	// the mcp.elicitation audit event. It must not block.
	OnElicitation func(server string, e Elicitation)
	Now           func() time.Time
	// CallTimeout bounds one tool call; when it passes, the request is
	// cancelled at the server and the call fails with a message. The
	// operator sets it (--call-timeout); 0 is DefaultCallTimeout.
	CallTimeout time.Duration
	// Sandbox is the session's OS sandbox: stdio servers whose manifest
	// opts in (`sandbox:`) start through its helper (sandbox.go).
	Sandbox sandboxing.Config
	// Private are the operator's allowances of exact private addresses
	// (private.go); only the operator's flag and file set them.
	Private []PrivateAllowance
	// HostSecrets are the host's own credentials by variable name
	// (dispatch.HostSecrets): replaced, as the declared values are, in
	// what the pool shows or records of a server (forms and their reports,
	// diagnostics, the stderr log, results). nil is none.
	HostSecrets func() map[string]string
	// Command renders a command line a diagnostic names, with the flags
	// the core needs (core.Core.Command); nil is "demiurge " + args.
	Command func(args string) string
}

// DefaultCallTimeout bounds an MCP tool call when the operator set none.
const DefaultCallTimeout = 10 * time.Minute

// Turn is what one turn's resolution runs under.
type Turn struct {
	Authority policy.Authority
	Workspace policy.Workspace
	Approvals *approval.Resolver
	Servers   []core.MCPServer
	Errors    []core.MCPManifestError
}

// Resolution is a turn's MCP contribution to the catalog.
type Resolution struct {
	Sources []catalog.Source
	States  []State
}

// Pool holds one session's MCP connections, bound to its authority.
// Closing it closes every connection; a delegated child or another session
// has a Pool of its own.
type Pool struct {
	cfg Config

	mu       sync.Mutex
	identity string
	conns    map[string]*live
	failures map[string]failure
	// refused are the servers the operator denied for this session, each
	// with the declaration's key it was denied for and the diagnostic.
	refused map[string]failure
	closed  bool
	spawner spawner
	// builds numbers the lives built (concurrent connects build at once),
	// so that a live's identity survives its memory being reused (Settled).
	builds atomic.Uint64
}

// live is a connected server with what it contributes, built once.
type live struct {
	c      *conn
	source catalog.Source
	state  State
	// pinStamp is the server's pin file as it was when the source was
	// built.
	pinStamp fileid.ID
	// build is the pool's number of this live (Pool.builds).
	build uint64
}

// failure is a negatively cached discovery failure, for one declaration.
type failure struct {
	key     string
	diag    string
	retryAt time.Time
}

// NewPool makes an empty pool.
func NewPool(cfg Config) *Pool {
	if cfg.NegativeTTL <= 0 {
		cfg.NegativeTTL = NegativeTTL
	}
	if cfg.Limiter == nil {
		cfg.Limiter = runtimeLimiter()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Command == nil {
		cfg.Command = func(args string) string { return "demiurge " + args }
	}
	return &Pool{cfg: cfg, conns: map[string]*live{}, failures: map[string]failure{}, refused: map[string]failure{}}
}

// Resolve brings the pool in line with the turn's declarations and returns
// the sources of the connected servers and every server's state.
func (p *Pool) Resolve(ctx context.Context, t Turn) Resolution {
	return p.resolve(ctx, t, nil, false)
}

// ResolveFor is Resolve for the servers want names only: the others are
// neither connected, asked about nor listed, and their connections are
// left as they are. The operator's call of one tool needs only the server
// that can offer it (MayOffer), not a question about every other one.
func (p *Pool) ResolveFor(ctx context.Context, t Turn, want func(server string) bool) Resolution {
	return p.resolve(ctx, t, want, false)
}

// Test connects one declared server now, whatever its negative cache
// says, and returns its state.
func (p *Pool) Test(ctx context.Context, t Turn, server string) (State, bool) {
	r := p.resolve(ctx, t, func(id string) bool { return id == server }, true)
	for _, s := range r.States {
		if s.Server == server {
			return s, true
		}
	}
	return State{}, false
}

// resolve resolves the servers want names (nil: every one); force
// connects them whatever their negative cache says.
func (p *Pool) resolve(ctx context.Context, t Turn, want func(string) bool, force bool) Resolution {
	if want == nil {
		want = func(string) bool { return true }
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return Resolution{}
	}
	// A change of principal, session, core revision, capabilities or
	// effective policy leaves every connection and diagnostic behind.
	if id := t.Authority.Fingerprint(); id != p.identity {
		p.closeAllLocked("authority changed")
		p.failures = map[string]failure{}
		p.refused = map[string]failure{}
		p.identity = id
	}
	// What the core's loader cannot judge, whoever loaded the turn's
	// manifests (envcheck.go).
	t.Servers, t.Errors = refuseExecControlEnv(t.Servers, t.Errors)
	now := p.cfg.Now()
	declared := map[string]bool{}
	var states []State
	type pending struct {
		i int
		p *plan
	}
	var toConnect []pending
	for _, me := range t.Errors {
		declared[me.ID] = true
		if !want(me.ID) {
			continue
		}
		p.dropLocked(me.ID, "declaration invalid")
		states = append(states, State{Server: me.ID, File: me.Err.File, Status: StatusFailed, Diagnostic: me.Err.Error()})
	}
	// The host's credentials, read once and only when a plan is made.
	host := sync.OnceValue(func() map[string]string {
		if p.cfg.HostSecrets == nil {
			return nil
		}
		return p.cfg.HostSecrets()
	})
	for _, s := range t.Servers {
		declared[s.ID] = true
		if !want(s.ID) {
			continue
		}
		// The fast path of every turn: the same declaration, in the same
		// workspace, still connected. Nothing is resolved again.
		if l := p.conns[s.ID]; l != nil && l.c.plan.server.Fingerprint == s.Fingerprint &&
			l.c.plan.server.File == s.File && l.c.plan.workspace == t.Workspace.Root && l.c.alive() {
			// A review decided since (mcp review, maybe in another
			// process) changes what the connection offers, not the
			// connection.
			if pinStamp(p.cfg.StateDir, s.ID) != l.pinStamp {
				nl, err := p.build(l.c)
				if err != nil {
					p.dropLocked(s.ID, "pins unusable")
					states = append(states, State{Server: s.ID, File: s.File, Transport: s.Transport, Status: StatusFailed, Diagnostic: err.Error()})
					continue
				}
				p.conns[s.ID], l = nl, nl
			}
			states = append(states, l.state)
			continue
		}
		st := State{Server: s.ID, File: s.File, Transport: s.Transport}
		if !s.Enabled {
			p.dropLocked(s.ID, "disabled")
			st.Status, st.Diagnostic = StatusDisabled, "enabled: false in "+s.File
			states = append(states, st)
			continue
		}
		pl, err := newPlan(s, t.Workspace, p.cfg.CoreDir, allowancesFor(p.cfg.Private, s.ID), host())
		if err != nil {
			p.dropLocked(s.ID, "declaration unusable")
			st.Status, st.Diagnostic = StatusFailed, pl.redactErr(err)
			states = append(states, st)
			continue
		}
		if l := p.conns[s.ID]; l != nil {
			switch {
			case l.c.plan.key == pl.key && l.c.alive():
				states = append(states, l.state)
				continue
			case l.c.plan.key == pl.key:
				// It died since the last turn: a discovery failure like
				// any other, retried after the window.
				p.dropLocked(s.ID, "exited")
				p.failures[s.ID] = failure{key: pl.key, diag: "the server's connection ended (the process exited or the server went away); it is reconnected after the retry window", retryAt: now.Add(p.cfg.NegativeTTL)}
			default:
				// A changed declaration closes the old connection; the
				// new one needs its own connect approval.
				p.dropLocked(s.ID, "declaration changed")
			}
		}
		if f, ok := p.failures[s.ID]; ok && !force {
			if f.key == pl.key && now.Before(f.retryAt) {
				st.Status, st.Diagnostic, st.RetryAt = StatusFailed, f.diag, f.retryAt
				states = append(states, st)
				continue
			}
		}
		delete(p.failures, s.ID)
		// Denied for the session by the operator: not asked again, unless
		// the declaration changed or the operator tests it (mcp test).
		if r, ok := p.refused[s.ID]; ok && r.key == pl.key && !force {
			st.Status, st.Diagnostic = StatusDenied, r.diag
			states = append(states, st)
			continue
		}
		delete(p.refused, s.ID)
		// The gate runs before any client is made or process started.
		if err := gate(ctx, pl, t.Authority, t.Approvals); err != nil {
			st.Status, st.Diagnostic = StatusDenied, pl.redactErr(err)
			if de := (*deniedError)(nil); errors.As(err, &de) && de.forSession {
				p.refused[s.ID] = failure{key: pl.key, diag: st.Diagnostic}
			}
			states = append(states, st)
			continue
		}
		states = append(states, st)
		toConnect = append(toConnect, pending{len(states) - 1, pl})
	}
	// Removed declarations close their connections.
	for id := range p.conns {
		if !declared[id] {
			p.dropLocked(id, "declaration removed")
		}
	}

	results := make([]*live, len(toConnect))
	errs := make([]error, len(toConnect))
	var wg sync.WaitGroup
	for k, pc := range toConnect {
		wg.Go(func() {
			results[k], errs[k] = p.connect(ctx, pc.p, t)
		})
	}
	wg.Wait()
	for k, pc := range toConnect {
		st := &states[pc.i]
		if errs[k] != nil {
			var de *deniedError
			if errors.As(errs[k], &de) {
				st.Status, st.Diagnostic = StatusDenied, de.msg
				continue
			}
			st.Status, st.Diagnostic = StatusFailed, pc.p.redactErr(errs[k])
			if ctx.Err() != nil {
				continue // the turn was cancelled, not the server's fault: retried next turn
			}
			st.RetryAt = p.cfg.Now().Add(p.cfg.NegativeTTL)
			p.failures[pc.p.server.ID] = failure{key: pc.p.key, diag: st.Diagnostic, retryAt: st.RetryAt}
			continue
		}
		p.conns[pc.p.server.ID] = results[k]
		*st = results[k].state
	}

	for i := range states {
		states[i] = states[i].shown()
	}
	res := Resolution{States: states}
	for _, s := range t.Servers {
		if l := p.conns[s.ID]; l != nil && want(s.ID) {
			res.Sources = append(res.Sources, l.source)
		}
	}
	return res
}

// connect takes a discovery slot, connects and builds the server's source.
func (p *Pool) connect(ctx context.Context, pl *plan, t Turn) (*live, error) {
	if err := p.cfg.Limiter.acquire(ctx); err != nil {
		return nil, err
	}
	c, err := connect(ctx, pl, dialConfig{env: p.cfg.Env, stateDir: p.cfg.StateDir, httpClient: p.httpClient, spawner: &p.spawner, sandbox: p.cfg.Sandbox,
		approvals: t.Approvals, authority: t.Authority, onElicitation: p.cfg.OnElicitation})
	p.cfg.Limiter.release()
	if err != nil {
		return nil, err
	}
	l, err := p.build(c)
	if err != nil {
		c.abort("tools refused")
		return nil, err
	}
	return l, nil
}

// build is what a connection contributes: the tools that pass naming,
// schema and pin checks, as a catalog source, and the server's state.
func (p *Pool) build(c *conn) (*live, error) {
	pl := c.plan
	offered, refused, err := selectTools(pl.server, c.tools)
	if err != nil {
		return nil, err
	}
	offered, quarantined, err := applyPins(p.cfg.StateDir, pl.server, offered, p.cfg.Now(), p.cfg.Command)
	if err != nil {
		return nil, err
	}
	timeout := p.cfg.CallTimeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	a := &Adapter{conn: c, names: make(map[string]string, len(offered)), timeout: timeout}
	src := catalog.Source{Kind: catalog.SourceMCP, Name: pl.server.ID, Binding: a}
	st := State{Server: pl.server.ID, File: pl.server.File, Transport: pl.server.Transport, Status: StatusConnected,
		Refused: refused, Quarantined: quarantined, Protocol: c.protocol}
	if c.server.Name != "" {
		st.ServerInfo = c.server.Name + " " + c.server.Version
	}
	for _, t := range offered {
		a.names[t.name] = t.raw.Name
		src.Tools = append(src.Tools, spec(pl, t))
		st.Tools = append(st.Tools, t.name)
	}
	return &live{c: c, source: src, state: st.shown(), pinStamp: pinStamp(p.cfg.StateDir, pl.server.ID), build: p.builds.Add(1)}, nil
}

// httpClient is the URL policy's pinned client for one HTTP server; the
// URL is checked before any client is made.
func (p *Pool) httpClient(pl *plan) (*http.Client, error) {
	opts := p.cfg.Net
	if cb := p.cfg.OnURLDecision; cb != nil {
		id := pl.server.ID
		opts.OnDecision = func(d netpolicy.Decision) { cb(id, d) }
	}
	for _, a := range pl.private {
		opts.AllowPrivate = append(opts.AllowPrivate, a.Addr)
	}
	pol := netpolicy.New(opts)
	if _, err := pol.Check(pl.server.URL); err != nil {
		// Refused before any request: audited like a refused request.
		if opts.OnDecision != nil {
			d := netpolicy.Decision{Phase: "request", Origin: netpolicy.OriginSummary(pl.server.URL), Class: "invalid-url", Reason: netpolicy.SafeMessage(err)}
			var re *netpolicy.RefusedError
			if errors.As(err, &re) {
				d.Class, d.Reason = re.Class, re.Reason
			}
			opts.OnDecision(d)
		}
		return nil, errors.New(netpolicy.SafeMessage(err))
	}
	// Every response body is bounded per message (MaxMessageBytes): mcp-go
	// reads a JSON body or an SSE event whole.
	c := pol.Client()
	c.Transport = &boundTransport{inner: c.Transport, server: pl.server.ID, limit: MaxMessageBytes, joinLimit: maxEventJoin}
	var err error
	if c.Transport, err = newOriginHeaders(c.Transport, pl.server.URL, pl.server.Headers); err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	return c, nil
}

// States are the servers' standings as of the last resolution, without
// resolving again (connected servers only know they are connected).
func (p *Pool) Connected() []State {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []State
	for _, l := range p.conns {
		out = append(out, l.state)
	}
	return out
}

func (p *Pool) dropLocked(id, reason string) {
	if l := p.conns[id]; l != nil {
		l.c.close(reason)
		delete(p.conns, id)
	}
}

func (p *Pool) closeAllLocked(reason string) {
	var wg sync.WaitGroup
	for id, l := range p.conns {
		wg.Go(func() { l.c.close(reason) })
		delete(p.conns, id)
	}
	wg.Wait()
}

// Close closes every connection and kills every stdio server's process
// group. The pool resolves nothing afterwards.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	p.closeAllLocked("host closed")
	p.spawner.stop()
}
