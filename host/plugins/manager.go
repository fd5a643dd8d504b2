package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"demiurge.dev/shared/toolsetv1"
)

// Config says where plugins live and how they run.
type Config struct {
	// Dirs are searched in order; see Discover.
	Dirs []Dir
	// CacheDir holds the Describe cache; "" disables it.
	CacheDir string
	// VerifiedDir holds the verified-image records, which spare a start
	// the copy and hash of an unchanged binary (imagecache.go); "" disables
	// them.
	VerifiedDir string
	// Home is the HOME a plugin process gets: a host-owned directory.
	Home string
	// StateDir is the state directory, which no confined plugin reads
	// even when it lies in the workspace.
	StateDir string
	Logger   hclog.Logger
	// StartTimeout bounds one plugin start (default 10 s).
	StartTimeout time.Duration
	// Inputs are what some plugins' Describe depends on besides their
	// binary, by toolset name (see Input).
	Inputs map[string]Input
}

// Manager supervises the toolset plugins of one host process.
type Manager struct {
	cfg     launchConfig
	cache   describeCache
	cands   []Candidate
	byName  map[string]*supervised
	closeMu sync.RWMutex
	closed  bool
	// dir is the directory plugins start in (SetWorkDir).
	dir atomic.Pointer[string]
	// held is SetHeld's list.
	held atomic.Pointer[[]string]
	// refuse is SetLaunchCheck's function.
	refuse atomic.Pointer[func(string) string]
	// egressAudit is SetEgressAudit's function.
	egressAudit atomic.Pointer[EgressRecord]
}

// supervised is one plugin's life: lazily started, restarted after a crash
// on the next call, with a growing delay between consecutive crashes.
type supervised struct {
	cand  Candidate
	input Input
	mu    sync.Mutex
	inst  *instance
	// crashes counts consecutive crashes; a run longer than healthyRun
	// resets it.
	crashes   int
	lastCrash time.Time
	lastErr   error
}

const healthyRun = time.Minute

// restartDelay is how long to wait before the n-th consecutive restart:
// the first is immediate, so one crash costs only the call it happened in.
func restartDelay(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := 200 * time.Millisecond << min(n-2, 6)
	return min(d, 10*time.Second)
}

// New discovers the plugins in cfg.Dirs. Nothing is started yet.
func New(cfg Config) (*Manager, error) {
	detachStdin()
	cands, err := Discover(cfg.Dirs)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	timeout := cfg.StartTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	m := &Manager{
		cfg: launchConfig{env: PluginEnv(cfg.Home), home: cfg.Home, state: cfg.StateDir, log: log, spawner: sharedSpawner(), timeout: timeout,
			records: verifiedRecords{dir: cfg.VerifiedDir}},
		cache:  describeCache{dir: cfg.CacheDir},
		cands:  cands,
		byName: map[string]*supervised{},
	}
	for _, c := range cands {
		m.byName[c.Name] = &supervised{cand: c, input: cfg.Inputs[c.Name]}
	}
	return m, nil
}

var (
	spawnerOnce sync.Once
	theSpawner  *spawner
)

// sharedSpawner is process-wide: its threads must outlive every plugin.
func sharedSpawner() *spawner {
	spawnerOnce.Do(func() { theSpawner = newSpawner(4) })
	return theSpawner
}

// Candidates lists the discovered plugins.
func (m *Manager) Candidates() []Candidate { return append([]Candidate(nil), m.cands...) }

// Has reports whether a plugin of that toolset name was found.
func (m *Manager) Has(name string) bool { _, ok := m.byName[name]; return ok }

// ErrClosed is returned once the manager has shut down.
var ErrClosed = errors.New("plugin manager is shut down")

func (m *Manager) get(name string) (*supervised, error) {
	s, ok := m.byName[name]
	if !ok {
		return nil, fmt.Errorf("no toolset plugin %q is installed", name)
	}
	return s, nil
}

// Description is a plugin's Describe answer and how it was obtained.
type Description struct {
	*toolsetv1.DescribeResponse
	Protocol int
	SHA256   string
	Cached   bool
}

// Describe returns a plugin's tools, from the cache when the binary is
// unchanged, else by starting the plugin (which stays up for calls).
func (m *Manager) Describe(ctx context.Context, name string) (Description, error) {
	s, err := m.get(name)
	if err != nil {
		return Description{}, err
	}
	s.mu.Lock()
	running := s.inst != nil && !s.inst.exited()
	s.mu.Unlock()
	if !running {
		if d, ok := m.cache.load(cacheKey(s.cand.Recorded, s.input), s.cand.Path); ok {
			return Description{DescribeResponse: d.DescribeResponse, Protocol: d.Protocol, SHA256: s.cand.Recorded, Cached: true}, nil
		}
	}
	inst, err := m.running(ctx, s)
	if err != nil {
		return Description{}, err
	}
	return Description{DescribeResponse: inst.desc.DescribeResponse, Protocol: inst.desc.Protocol, SHA256: s.cand.Recorded}, nil
}

// DescribeAll describes the named plugins in parallel. A plugin that
// cannot be described has its error in the second map, so that one broken
// plugin does not hide the others.
func (m *Manager) DescribeAll(ctx context.Context, names []string) (map[string]Description, map[string]error) {
	out := make(map[string]Description, len(names))
	errs := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Go(func() {
			d, err := m.Describe(ctx, n)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs[n] = err
				return
			}
			out[n] = d
		})
	}
	wg.Wait()
	return out, errs
}

// running returns a live instance, starting or restarting the plugin.
func (m *Manager) running(ctx context.Context, s *supervised) (*instance, error) {
	m.closeMu.RLock()
	defer m.closeMu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst != nil && !s.inst.exited() {
		return s.inst, nil
	}
	if s.inst != nil { // it died: account for the crash and clean up
		if time.Since(s.inst.started) > healthyRun {
			s.crashes = 0
		}
		s.crashes++
		s.lastCrash = time.Now()
		s.inst.kill()
		s.inst = nil
	}
	if wait := time.Until(s.lastCrash.Add(restartDelay(s.crashes))); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, fmt.Errorf("toolset plugin %s is restarting after %d crashes: %w", s.cand.Name, s.crashes, ctx.Err())
		}
	}
	cfg := m.cfg
	cfg.dir = m.workDir(cfg.home)
	if d := m.dir.Load(); d != nil {
		cfg.workspace = *d
	}
	if h := m.held.Load(); h != nil {
		cfg.held = *h
	}
	if r := m.refuse.Load(); r != nil {
		cfg.refuse = *r
	}
	if r := m.egressAudit.Load(); r != nil {
		cfg.egressAudit = *r
	}
	inst, err := launch(ctx, s.cand, s.input, cfg)
	if err != nil {
		s.lastErr = err
		return nil, err
	}
	s.inst, s.lastErr = inst, nil
	if err := m.cache.store(cacheKey(s.cand.Recorded, s.input), s.cand.Path, inst.desc); err != nil {
		m.cfg.log.Warn("describe cache not written", "plugin", s.cand.Name, "error", err)
	}
	return inst, nil
}

// instance is the named plugin's live instance, started if need be.
func (m *Manager) instance(ctx context.Context, name string) (*instance, error) {
	s, err := m.get(name)
	if err != nil {
		return nil, err
	}
	return m.running(ctx, s)
}

// Invoke runs one call in a plugin. Events other than the result go to
// onEvent as they arrive. A plugin that dies during the call fails that
// call; the next call restarts it.
func (m *Manager) Invoke(ctx context.Context, name string, req *toolsetv1.EffectRequest, hooks Hooks, onEvent func(*toolsetv1.InvokeEvent) error) (*toolsetv1.ToolResult, error) {
	return m.InvokeWithGrace(ctx, 0, name, req, hooks, onEvent)
}

// InvokeWithGrace is Invoke, except that when ctx ends the plugin is asked
// to cancel the call (the Cancel RPC) and up to grace is given for its
// result, which then is returned: a cancelled command's exit status is
// kept. Past grace the stream is cancelled as Invoke does at once. A grace
// of zero is Invoke.
func (m *Manager) InvokeWithGrace(ctx context.Context, grace time.Duration, name string, req *toolsetv1.EffectRequest, hooks Hooks, onEvent func(*toolsetv1.InvokeEvent) error) (*toolsetv1.ToolResult, error) {
	inst, err := m.instance(ctx, name)
	if err != nil {
		return nil, err
	}
	inst.hs.begin(req.GetInvocationId(), hooks)
	defer inst.hs.end(req.GetInvocationId())
	// Leaving early (an event the host refused) cancels the plugin's call.
	callerCtx := ctx
	ctx, cancel := streamContext(ctx, grace, inst.toolset, req.GetInvocationId())
	defer cancel()
	stream, err := inst.toolset.Invoke(ctx, req)
	if err != nil {
		return nil, m.callError(callerCtx, inst, name, err)
	}
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			return nil, fmt.Errorf("toolset plugin %s ended the call without a result", name)
		}
		if err != nil {
			return nil, m.callError(callerCtx, inst, name, err)
		}
		if r := ev.GetResult(); r != nil {
			inst.groups.done(req.GetInvocationId())
			if grace <= 0 && ended(callerCtx) {
				// The caller had gone by then: what the plugin answered
				// to the cancellation is not the call's result.
				return nil, m.callError(callerCtx, inst, name, context.Canceled)
			}
			return r, nil
		}
		if sp := ev.GetSpawned(); sp != nil {
			if !inst.groups.add(req.GetInvocationId(), inst.pid, int(sp.GetPgid()), sp.GetStartMarker()) {
				m.cfg.log.Debug("a reported process group is not (or no longer) the plugin's own child group; not recorded", "plugin", name, "pgid", sp.GetPgid())
			}
			continue
		}
		if onEvent != nil {
			if err := onEvent(ev); err != nil {
				return nil, err
			}
		}
	}
}

// ended says whether the caller's context is done or past its deadline.
// gRPC passes the deadline to the plugin, whose own timer may fire (and
// its answer to the cancellation arrive) before the context's here does.
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// callError says whether a failed call was cancelled or the plugin died.
func (m *Manager) callError(ctx context.Context, inst *instance, name string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("call cancelled: %w", context.Cause(ctx))
	}
	// gRPC ends a stream at the caller's deadline by its own timer, which
	// may fire before the context's: the context's cause (a timeout's
	// message) follows within moments.
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("call cancelled: %w", context.Cause(ctx))
		case <-time.After(100 * time.Millisecond):
		}
		return fmt.Errorf("call cancelled: %w", context.DeadlineExceeded)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !inst.exited() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if inst.exited() {
		inst.endOrphans()
		return fmt.Errorf("toolset plugin %s exited during the call, which did not complete; it will be restarted on the next call", name)
	}
	return fmt.Errorf("toolset plugin %s: %w", name, err)
}

// Close stops every plugin and its process group. Calls after Close fail.
func (m *Manager) Close() {
	m.closeMu.Lock()
	m.closed = true
	m.closeMu.Unlock()
	var wg sync.WaitGroup
	for _, s := range m.byName {
		s.mu.Lock()
		inst := s.inst
		s.inst = nil
		s.mu.Unlock()
		if inst != nil {
			wg.Go(inst.kill)
		}
	}
	wg.Wait()
}

// Precheck asks a plugin whether a call can succeed, without effects.
func (m *Manager) Precheck(ctx context.Context, name string, req *toolsetv1.EffectRequest) (*toolsetv1.ToolResult, error) {
	inst, err := m.instance(ctx, name)
	if err != nil {
		return nil, err
	}
	res, err := inst.toolset.Precheck(ctx, req)
	if err != nil {
		return nil, m.callError(ctx, inst, name, err)
	}
	return res, nil
}
