package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/runtime"
)

func TestMain(m *testing.M) {
	if _, err := mcptest.BuildServers(); err != nil {
		println(err.Error())
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		mcptest.Cleanup()
		os.Exit(code)
	}))
}

// asker is an approval provider that counts what it is asked and answers
// per tool (default: deny).
type asker struct {
	mu      sync.Mutex
	asked   []string
	answers map[string]approval.Answer
	// onAsk runs while the operator is asked (between the plan and the
	// start): tests change the workspace there.
	onAsk func()
}

func (a *asker) Name() string { return "test" }
func (a *asker) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, r.Tool+"\n"+r.Preview)
	if a.onAsk != nil {
		a.onAsk()
	}
	return a.answers[r.Tool], nil
}
func (a *asker) count() int { a.mu.Lock(); defer a.mu.Unlock(); return len(a.asked) }
func (a *asker) allow(tools ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range tools {
		a.answers[t] = approval.AllowSession
	}
}

// fixture is a workspace, an MCP manifest directory, a pool and the
// authority its turns run under.
type fixture struct {
	t       testing.TB
	bins    string
	ws      policy.Workspace
	state   string
	mcpDir  string
	pool    *Pool
	caps    []string
	session string
	ask     *asker
	rules   []approval.Rule
}

func newFixture(t *testing.T, mod ...func(*Config)) *fixture {
	t.Helper()
	return newFixtureTB(t, mod...)
}

func newFixtureTB(t testing.TB, mod ...func(*Config)) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{
		t: t, bins: mcptest.Servers(t), state: filepath.Join(root, "state"), mcpDir: filepath.Join(root, "core", "agent", "mcp"),
		caps: []string{"mcp.connect:*", "mcp.call:*"}, session: "ses_1", ask: &asker{answers: map[string]approval.Answer{}},
	}
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.mcpDir, 0o755); err != nil {
		t.Fatal(err)
	}
	f.ws = policy.Workspace{Root: ws}
	home := filepath.Join(f.state, "runtime", "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := Config{StateDir: f.state, Env: plugins.PluginEnv(home), CoreDir: filepath.Join(root, "core")}
	for _, m := range mod {
		m(&cfg)
	}
	f.pool = NewPool(cfg)
	t.Cleanup(f.pool.Close)
	return f
}

// server writes agent/mcp/<id>.yaml running the test server bin.
func (f *fixture) server(id, bin, extra string) {
	f.t.Helper()
	mcptest.Manifest(f.t, f.mcpDir, id, "command: "+filepath.Join(f.bins, bin)+"\n"+extra)
}

func (f *fixture) authority() policy.Authority {
	f.t.Helper()
	caps, err := policy.NewCapabilitySet(f.caps)
	if err != nil {
		f.t.Fatal(err)
	}
	return policy.Authority{Principal: "local:test", Session: f.session, CoreRevision: "rev1", Capabilities: caps, PolicyFingerprint: "pol1"}
}

func (f *fixture) turn() Turn {
	f.t.Helper()
	servers, errs := core.LoadMCPServers(f.mcpDir)
	return Turn{
		Authority: f.authority(), Workspace: f.ws, Servers: servers, Errors: errs,
		Approvals: &approval.Resolver{Provider: f.ask, Rules: f.rules, Sessions: approval.NewSessionAllows(0)},
	}
}

func (f *fixture) resolve() Resolution {
	f.t.Helper()
	// Above every connect_timeout_seconds a test sets (120 s at most): the
	// turn's deadline bounds the connect too, and at 30 s it cut the 120 s
	// that TestAToolListIsBoundedWhileItIsRead and TestHTTPMessageBound
	// give their large lists under -race, which then failed after 30 s
	// with a diagnostic naming the 2m connect timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	return f.pool.Resolve(ctx, f.turn())
}

// state returns the state of server id in r.
func state(t *testing.T, r Resolution, id string) State {
	t.Helper()
	for _, s := range r.States {
		if s.Server == id {
			return s
		}
	}
	t.Fatalf("no state for %s in %+v", id, r.States)
	return State{}
}

// dispatchTurn builds a real dispatch turn over the resolution's sources,
// with a real store, allowing calls of the given tools by rule.
func (f *fixture) dispatchTurn(r Resolution, allow ...string) *dispatch.Turn {
	f.t.Helper()
	cat, err := catalog.Resolve(r.Sources, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	store, err := runtime.Open(filepath.Join(f.t.TempDir(), "state.db"))
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { store.Close() })
	var rules []approval.Rule
	for _, tool := range allow {
		rule, err := approval.ParseRule("allow:" + tool)
		if err != nil {
			f.t.Fatal(err)
		}
		rules = append(rules, rule)
	}
	return &dispatch.Turn{ID: "turn_1", Catalog: cat, Authority: f.authority(), Workspace: f.ws,
		Approvals: &approval.Resolver{Rules: rules}, Events: store, MaxCalls: 1000}
}

// processGone waits up to 3 s for pid to stop existing (or be a zombie
// nobody will reap, which /proc shows as state Z).
func processGone(pid int) bool {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return true
		}
		if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 2 && f[2] == "Z" {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
