package packages

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// recording is the plugin side of a bound call, as far as the binding can
// tell: it keeps the secrets each call carried and echoes them back.
type recording struct{ calls []map[string]string }

func (r *recording) Invoke(_ context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	r.calls = append(r.calls, inv.Secrets)
	var echo []string
	for _, v := range inv.Secrets {
		echo = append(echo, v)
	}
	return &toolsetv1.ToolResult{Content: "got " + strings.Join(echo, ","), Structured: []byte(`{"echo":"` + strings.Join(echo, ",") + `"}`)}, nil
}

func (r *recording) Precheck(context.Context, dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	return &toolsetv1.ToolResult{}, nil
}

func testStore(t *testing.T) *runtime.Store {
	t.Helper()
	s, err := runtime.Open(filepath.Join(t.TempDir(), "demiurge.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func lockedPackage() installed.Locked {
	return installed.Locked{
		Name: "search_one", Version: "1.0.0", Tools: []string{"web_search", "other"},
		Secrets: []installed.Secret{{Env: "TEST_API_KEY", Target: "TEST_API_KEY", Tools: []string{"web_search"}}},
		Grants:  []string{"secret.bind:TEST_API_KEY"},
	}
}

func TestBindOnlyWhatWasGranted(t *testing.T) {
	const value = "test-secret-value-0123456789"
	env := func(name string) (string, bool) { return value, name == "TEST_API_KEY" }
	store := testStore(t)
	for _, tc := range []struct {
		name   string
		pkg    func(installed.Locked) installed.Locked
		tool   string
		bound  bool
		events int
	}{
		{"declared tool", func(p installed.Locked) installed.Locked { return p }, "web_search", true, 1},
		{"undeclared tool of the package", func(p installed.Locked) installed.Locked { return p }, "other", false, 0},
		{"grant not in the lock", func(p installed.Locked) installed.Locked { p.Grants = nil; return p }, "web_search", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := store.Events(runtime.EventQuery{Kind: EventKindSecretBind})
			inner := &recording{}
			b := &boundAdapter{inner: inner, pkg: tc.pkg(lockedPackage()), events: func() (*runtime.Store, error) { return store, nil }, lookup: env}
			res, err := b.Invoke(context.Background(), dispatch.Invocation{ID: "inv_1", Tool: tc.tool, Session: "ses_1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := inner.calls[0]["TEST_API_KEY"] == value; got != tc.bound {
				t.Fatalf("bound = %v, want %v", got, tc.bound)
			}
			if strings.Contains(res.GetContent(), value) || strings.Contains(string(res.GetStructured()), value) {
				t.Fatalf("the value came back: %s %s", res.GetContent(), res.GetStructured())
			}
			if tc.bound && (res.GetContent() != "got <redacted:TEST_API_KEY>" || string(res.GetStructured()) != `{"echo":"<redacted:TEST_API_KEY>"}`) {
				t.Fatalf("not redacted as expected: %q %s", res.GetContent(), res.GetStructured())
			}
			after, _ := store.Events(runtime.EventQuery{Kind: EventKindSecretBind})
			if len(after)-len(before) != tc.events {
				t.Fatalf("%d secret.bind events, want %d", len(after)-len(before), tc.events)
			}
		})
	}
}

func TestBindFailsClosedWithoutAudit(t *testing.T) {
	store := testStore(t)
	store.Close() // appends now fail
	inner := &recording{}
	b := &boundAdapter{inner: inner, pkg: lockedPackage(), events: func() (*runtime.Store, error) { return store, nil },
		lookup: func(string) (string, bool) { return "test-secret-value-0123456789", true }}
	_, err := b.Invoke(context.Background(), dispatch.Invocation{ID: "inv_1", Tool: "web_search"})
	if err == nil || !strings.Contains(err.Error(), "could not be recorded, so the call did not run") || len(inner.calls) != 0 {
		t.Fatalf("err %v, calls %d", err, len(inner.calls))
	}
}

// TestBindMatchesThePluginNotTheName: a package's secrets attach only to
// its own binary, where install placed it, at the sum the lock recorded.
// The attack of issue 11: a package named like a built-in toolset, whose
// binary the built-in plugin shadows, had its bindings attach to every
// built-in call.
func TestBindMatchesThePluginNotTheName(t *testing.T) {
	p := lockedPackage()
	p.PluginDir = "/state/packages/installed/0123/search_one"
	p.BinarySHA256 = strings.Repeat("a", 64)
	own := plugins.Candidate{Name: "search_one", Path: p.PluginDir + "/demiurge-toolset-search_one", Origin: plugins.OriginInstalled, Recorded: p.BinarySHA256}
	named := func(name string) installed.Locked { q := p; q.Name = name; return q }
	for _, tc := range []struct {
		name   string
		active *installed.Active
		cand   func(plugins.Candidate) plugins.Candidate
		bound  bool
	}{
		{"its own plugin", &installed.Active{Packages: []installed.Locked{p}}, func(c plugins.Candidate) plugins.Candidate { return c }, true},
		{"no active packages", nil, func(c plugins.Candidate) plugins.Candidate { return c }, false},
		{"a toolset that is no package", &installed.Active{Packages: []installed.Locked{p}}, func(c plugins.Candidate) plugins.Candidate { c.Name = "coding"; return c }, false},
		{"a built-in of the package's name", &installed.Active{Packages: []installed.Locked{named("coding")}},
			func(c plugins.Candidate) plugins.Candidate {
				c.Name, c.Origin, c.Path = "coding", plugins.OriginBuiltin, "/usr/lib/demiurge/demiurge-toolset-coding"
				return c
			}, false},
		{"an installed binary elsewhere", &installed.Active{Packages: []installed.Locked{p}}, func(c plugins.Candidate) plugins.Candidate {
			c.Path = "/state/plugins/demiurge-toolset-search_one"
			return c
		}, false},
		{"another sum than the lock's", &installed.Active{Packages: []installed.Locked{p}}, func(c plugins.Candidate) plugins.Candidate { c.Recorded = strings.Repeat("b", 64); return c }, false},
		{"a candidate with a problem", &installed.Active{Packages: []installed.Locked{p}}, func(c plugins.Candidate) plugins.Candidate { c.Problem = "unreadable"; return c }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := &recording{}
			_, wrapped := Bind(tc.active, tc.cand(own), inner, nil).(*boundAdapter)
			if wrapped != tc.bound {
				t.Fatalf("wrapped = %v, want %v", wrapped, tc.bound)
			}
		})
	}
}

func TestPrecheckRefusesAMissingSecret(t *testing.T) {
	inner := &recording{}
	set := false
	b := &boundAdapter{inner: inner, pkg: lockedPackage(), lookup: func(string) (string, bool) { return "test-secret-value-0123456789", set }}
	res, err := b.Precheck(context.Background(), dispatch.Invocation{Tool: "web_search"})
	if err != nil || !res.GetIsError() || res.GetErrorCode() != "missing_api_key" || !strings.Contains(res.GetContent(), "no TEST_API_KEY is set") {
		t.Fatalf("unset: %v %v", res, err)
	}
	if res, _ := b.Precheck(context.Background(), dispatch.Invocation{Tool: "other"}); res.GetIsError() {
		t.Fatalf("a tool without the secret was refused: %v", res)
	}
	set = true
	if res, _ := b.Precheck(context.Background(), dispatch.Invocation{Tool: "web_search"}); res.GetIsError() {
		t.Fatalf("set: %v", res)
	}
}
