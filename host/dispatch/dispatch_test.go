package dispatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/runtime"
)

var fixtureDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dispatch-fixtures-")
	if err != nil {
		panic(err)
	}
	if err := plugintest.Build(dir, "fixture", "demiurge.dev/sdk/testtoolsets/fixture"); err != nil {
		panic(err)
	}
	if err := plugintest.BuildOrCopy(dir, "coding", "demiurge.dev/plugins/coding"); err != nil {
		panic(err)
	}
	if err := plugintest.BuildOrCopy(dir, "demiurge_control", "demiurge.dev/plugins/control"); err != nil {
		panic(err)
	}
	fixtureDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreAnyFunction("demiurge.dev/host/plugins.newSpawner.func1")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}

// harness is a real manager, real plugins, a real store.
type harness struct {
	m     *plugins.Manager
	store *runtime.Store
	ws    string
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	m, err := plugins.New(plugins.Config{Dirs: []plugins.Dir{{Path: fixtureDir, Origin: plugins.OriginBuiltin}}, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	store, err := runtime.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); store.Close() })
	return &harness{m: m, store: store, ws: t.TempDir()}
}

// source turns a plugin's Describe into a catalog source, with the given
// metadata for every tool.
func (h *harness) source(t testing.TB, name string, meta func(tool string) catalog.Metadata) catalog.Source {
	t.Helper()
	d, err := h.m.Describe(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	src := catalog.Source{Kind: catalog.SourceBuiltin, Name: name, Binding: PluginAdapter{Manager: h.m, Toolset: name}}
	for _, ts := range d.GetTools() {
		spec := catalog.ToolSpec{Name: ts.GetName(), Description: ts.GetDescription(), InputSchema: ts.GetInputSchema(),
			Metadata: meta(ts.GetName()), Effect: catalog.EffectRead, Precheck: ts.GetHasPrecheck(),
			HostServices: ts.GetHostServices(), ApprovalPreview: ts.GetApprovalPreview(),
			Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin, Toolset: name}}
		for _, s := range ts.GetSubjects() {
			if p := s.GetPath(); p != nil {
				access := catalog.AccessRead
				if p.GetAccess() == 2 {
					access, spec.Effect = catalog.AccessWrite, catalog.EffectWrite
				}
				spec.Subjects = append(spec.Subjects, catalog.Subject{Kind: catalog.SubjectPath, Arg: p.GetArgument(), Access: access})
			}
		}
		src.Tools = append(src.Tools, spec)
	}
	return src
}

func (h *harness) turn(t testing.TB, grants []string, provider approval.Provider, sources ...catalog.Source) *Turn {
	t.Helper()
	cat, err := catalog.Resolve(sources, nil)
	if err != nil {
		t.Fatal(err)
	}
	caps, err := policy.NewCapabilitySet(grants)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := policy.NewWorkspace(h.ws)
	if err != nil {
		t.Fatal(err)
	}
	return &Turn{
		ID: "turn_test", Catalog: cat, Workspace: ws, Events: h.store,
		Authority: policy.Authority{Principal: "test", Session: "ses_test", Capabilities: caps},
		Approvals: &approval.Resolver{Provider: provider, Sessions: approval.NewSessionAllows(0)},
	}
}

func autoMeta(string) catalog.Metadata {
	return catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto, Capabilities: []string{"fs.read"}}
}

func codingMeta(tool string) catalog.Metadata {
	switch tool {
	case "write_file", "patch":
		return catalog.Metadata{Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt}
	}
	return catalog.Metadata{Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto}
}

type answer struct {
	a     approval.Answer
	asked int
}

func (p *answer) Name() string { return "scripted" }
func (p *answer) Ask(context.Context, approval.Request) (approval.Answer, error) {
	p.asked++
	return p.a, nil
}

func TestCallWritesAuditEventBeforeReturning(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, []string{"fs.read"}, nil, h.source(t, "fixture", autoMeta))
	out := turn.Call(context.Background(), ToolCall{ID: "c1", Name: "echo", Args: []byte(`{"text":"hi"}`)})
	if !out.OK() || out.Views.Model.String() != "hi" {
		t.Fatalf("outcome = %+v", out)
	}
	evs, err := h.store.Events(runtime.EventQuery{Tool: "echo"})
	if err != nil || len(evs) != 1 || evs[0].Seq != out.EventSeq || evs[0].CallID != "c1" {
		t.Fatalf("events = %+v, %v (seq %d)", evs, err, out.EventSeq)
	}
}

func TestRefusalsAreShortAndAudited(t *testing.T) {
	h := newHarness(t)
	fixture := h.source(t, "fixture", autoMeta)
	for _, tc := range []struct {
		name, tool, args string
		grants           []string
		status           Status
		want             string
	}{
		{"unknown", "ecko", `{}`, nil, StatusUnknownTool, `did you mean "echo"`},
		{"wrong type", "echo", `{"text":5}`, nil, StatusInvalidArguments, "text"},
		{"missing", "echo", `{}`, nil, StatusInvalidArguments, "missing required argument 'text'"},
		{"not object", "echo", `"hi"`, nil, StatusInvalidArguments, "object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := h.turn(t, tc.grants, nil, fixture)
			out := turn.Call(context.Background(), ToolCall{ID: tc.name, Name: tc.tool, Args: []byte(tc.args)})
			if out.Status != tc.status || !strings.Contains(out.Views.Model.String(), tc.want) {
				t.Fatalf("outcome = %s %q, want %s containing %q", out.Status, out.Views.Model.String(), tc.status, tc.want)
			}
			if out.EventSeq == 0 {
				t.Fatal("a refused call wrote no audit event")
			}
		})
	}
}

func TestCapabilityGateComesFirst(t *testing.T) {
	h := newHarness(t)
	src := h.source(t, "coding", codingMeta)
	p := &answer{a: approval.AllowOnce}
	turn := h.turn(t, []string{"fs.read"}, p, src)
	out := turn.Call(context.Background(), ToolCall{ID: "w", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"x"}`)})
	if out.Status != StatusCapabilityDenied || p.asked != 0 {
		t.Fatalf("status %s, asked %d", out.Status, p.asked)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused write happened")
	}
}

func TestApprovalDecidesPromptedCalls(t *testing.T) {
	h := newHarness(t)
	src := h.source(t, "coding", codingMeta)
	deny := h.turn(t, []string{"fs.read", "fs.write"}, approval.DenyAll{}, src)
	out := deny.Call(context.Background(), ToolCall{ID: "w1", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"x"}`)})
	if out.Status != StatusDenied {
		t.Fatalf("status = %s", out.Status)
	}
	p := &answer{a: approval.AllowOnce}
	allow := h.turn(t, []string{"fs.read", "fs.write"}, p, src)
	out = allow.Call(context.Background(), ToolCall{ID: "w2", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"x"}`)})
	if !out.OK() || p.asked != 1 {
		t.Fatalf("outcome %+v asked %d", out, p.asked)
	}
	// A patch that cannot apply is refused by its precheck: nobody is asked.
	out = allow.Call(context.Background(), ToolCall{ID: "p1", Name: "patch", Args: []byte(`{"path":"a.txt","old_string":"absent","new_string":"y"}`)})
	if out.Status != StatusPrecheckFailed || p.asked != 1 {
		t.Fatalf("patch: %s asked %d: %s", out.Status, p.asked, out.Views.Model.String())
	}
}

func TestSecretsNeverReachTheViews(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, nil, nil, h.source(t, "fixture", autoMeta))
	token := "ghp_" + strings.Repeat("aB3", 12)
	out := turn.Call(context.Background(), ToolCall{ID: "s", Name: "echo", Args: []byte(`{"text":"token ` + token + `"}`)})
	for name, v := range map[string]string{"model": out.Views.Model.String(), "card": out.Views.Card.Body + out.Views.Card.Args} {
		if strings.Contains(v, token) {
			t.Errorf("%s view has the token: %q", name, v)
		}
	}
	evs, _ := h.store.Events(runtime.EventQuery{})
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), token) {
			t.Fatalf("audit event has the token: %s", ev.Data)
		}
	}
}

type failingSink struct{}

func (failingSink) Append(context.Context, runtime.Event) (uint64, error) {
	return 0, errors.New("disk full")
}

func TestResultWithheldWhenAuditFails(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, nil, nil, h.source(t, "fixture", autoMeta))
	turn.Events = failingSink{}
	out := turn.Call(context.Background(), ToolCall{ID: "a", Name: "echo", Args: []byte(`{"text":"secret result"}`)})
	if out.Status != StatusAuditFailed || strings.Contains(out.Views.Model.String(), "secret result") {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestReadersOfABatchRunTogether(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, nil, nil, h.source(t, "fixture", autoMeta))
	dir := t.TempDir()
	args := func(n string) []byte { return []byte(`{"dir":"` + dir + `","name":"` + n + `","count":3}`) }
	outs := turn.Batch(context.Background(), []ToolCall{
		{ID: "1", Name: "rendezvous", Args: args("a")},
		{ID: "2", Name: "rendezvous", Args: args("b")},
		{ID: "3", Name: "rendezvous", Args: args("c")},
	})
	for _, o := range outs {
		if !o.OK() {
			t.Fatalf("%s: %s %s", o.CallID, o.Status, o.Views.Model.String())
		}
	}
}

func TestBatchCapPerTurn(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, nil, nil, h.source(t, "fixture", autoMeta))
	turn.MaxCalls = 2
	calls := []ToolCall{{ID: "1", Name: "echo", Args: []byte(`{"text":"1"}`)}, {ID: "2", Name: "echo", Args: []byte(`{"text":"2"}`)}, {ID: "3", Name: "echo", Args: []byte(`{"text":"3"}`)}}
	outs := turn.Batch(context.Background(), calls)
	if !outs[0].OK() || !outs[1].OK() || outs[2].Status != StatusCapExceeded {
		t.Fatalf("statuses: %s %s %s", outs[0].Status, outs[1].Status, outs[2].Status)
	}
}

func TestEffectCapabilitiesNeedDeclarationAndGrant(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, []string{"fs.read", "fs.write"}, nil, h.source(t, "fixture", autoMeta))
	ok := turn.Call(context.Background(), ToolCall{ID: "1", Name: "require_capability", Args: []byte(`{"capability":"fs.read"}`)})
	undeclared := turn.Call(context.Background(), ToolCall{ID: "2", Name: "require_capability", Args: []byte(`{"capability":"fs.write"}`)})
	if !ok.OK() || undeclared.OK() || !strings.Contains(undeclared.Views.Model.String(), "did not declare") {
		t.Fatalf("declared: %s %q; undeclared: %s %q", ok.Status, ok.Views.Model.String(), undeclared.Status, undeclared.Views.Model.String())
	}
	ungranted := h.turn(t, nil, nil, h.source(t, "fixture", autoMeta))
	out := ungranted.Call(context.Background(), ToolCall{ID: "3", Name: "require_capability", Args: []byte(`{"capability":"fs.read"}`)})
	if out.OK() || !strings.Contains(out.Views.Model.String(), "not granted") {
		t.Fatalf("ungranted: %s %q", out.Status, out.Views.Model.String())
	}
}

func TestArtifactsOutsideTheRootAreRefused(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, nil, nil, h.source(t, "fixture", autoMeta))
	turn.ArtifactRoot = filepath.Join(t.TempDir(), "runtime", "artifacts", "abc")
	turn.Artifacts = h.store
	inside := turn.Call(context.Background(), ToolCall{ID: "1", Name: "artifact", Args: []byte(`{"path":"` + filepath.Join(turn.ArtifactRoot, "out.log") + `"}`)})
	if !inside.OK() {
		t.Fatalf("inside: %s %s", inside.Status, inside.Views.Model.String())
	}
	// Indexed by the opaque root and the path under it, for this session.
	recs, err := h.store.Artifacts(turn.Authority.Principal, turn.Authority.Session)
	if err != nil || len(recs) != 1 || recs[0].Ref != "abc/out.log" || recs[0].Tool != "artifact" || recs[0].CallID != "1" {
		t.Fatalf("artifact index: %+v, %v", recs, err)
	}
	if other, _ := h.store.Artifacts("someone-else", turn.Authority.Session); len(other) != 0 {
		t.Fatalf("another principal sees %+v", other)
	}
	for _, p := range []string{"/etc/passwd", filepath.Join(turn.ArtifactRoot, "..", "x"), "relative.log"} {
		out := turn.Call(context.Background(), ToolCall{ID: p, Name: "artifact", Args: []byte(`{"path":"` + p + `"}`)})
		if out.Status != StatusFailed || !strings.Contains(out.Views.Model.String(), "outside its artifact root") {
			t.Fatalf("%s: %s %s", p, out.Status, out.Views.Model.String())
		}
	}
	// A root that is not a session root under runtime/artifacts hands out
	// nothing.
	turn.ArtifactRoot = filepath.Join(t.TempDir(), "elsewhere", "abc")
	out := turn.Call(context.Background(), ToolCall{ID: "2", Name: "artifact", Args: []byte(`{"path":"` + filepath.Join(turn.ArtifactRoot, "out.log") + `"}`)})
	if out.Status != StatusFailed || !strings.Contains(out.Views.Model.String(), "not under runtime/artifacts") {
		t.Fatalf("root elsewhere: %s %s", out.Status, out.Views.Model.String())
	}
}
