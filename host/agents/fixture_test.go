package agents_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/providers"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// fixture is a real host over the built plugins, with the spawn gate
// installed and the scripted model on loopback driving parent and
// children (routed by text only a child's request carries: its goal).
type fixture struct {
	h     *toolhost.Host
	gate  *agents.Gate
	srv   *pt.Server
	model providers.Provider
	ws    string
}

func newFixture(t testing.TB, lim agents.Limits, steps []pt.Step) *fixture {
	t.Helper()
	return newFixtureCore(t, lim, steps, "")
}

// newFixtureCore is newFixture over the core in coreDir ("": the
// embedded default).
func newFixtureCore(t testing.TB, lim agents.Limits, steps []pt.Step, coreDir string) *fixture {
	t.Helper()
	return newFixtureState(t, lim, steps, coreDir, t.TempDir())
}

// newFixtureState is newFixtureCore over the state directory state.
func newFixtureState(t testing.TB, lim agents.Limits, steps []pt.Step, coreDir, state string) *fixture {
	t.Helper()
	return newFixtureOptions(t, lim, steps, toolhost.Options{CoreDir: coreDir, StateDir: state})
}

// newFixtureOptions is newFixture over a host opened with opts (its
// workspace and plugin directory are the fixture's).
func newFixtureOptions(t testing.TB, lim agents.Limits, steps []pt.Step, opts toolhost.Options) *fixture {
	t.Helper()
	f := &fixture{ws: t.TempDir()}
	opts.Workspace, opts.BuiltinPluginDir = f.ws, pluginDir
	h, err := toolhost.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	f.h = h
	f.srv = pt.NewServer(pt.KindOpenAI, steps)
	t.Cleanup(f.srv.Close)
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	f.model, err = providers.New(providers.Config{Provider: providers.ProviderOpenAICompatible, Name: "test", BaseURL: f.srv.URL + "/v1"},
		func(string) string { return "" }, hc)
	if err != nil {
		t.Fatal(err)
	}
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	f.gate = &agents.Gate{Host: h, Limits: lim, NewLoop: func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: f.model, Session: child, Store: store, System: "You are a test agent."}, nil
	}}
	f.gate.Install()
	return f
}

func (f *fixture) write(t testing.TB, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.ws, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// child is a step answering only the child whose goal is goal.
func child(goal string, s pt.Step) pt.Step {
	s.For = `"content":"` + goal
	return s
}

func spawn(t *testing.T, f *fixture, parent *toolhost.Session, turnID string, req agents.Request) (*agents.Child, error) {
	t.Helper()
	if req.NotifyPolicy == "" {
		req.NotifyPolicy = agents.NotifySilent
	}
	if req.ContextMode == "" {
		req.ContextMode = "isolated"
	}
	return f.gate.Spawn(context.Background(), parent, turnID, "call_1", req)
}
