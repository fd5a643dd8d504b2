package toolhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/runtime"
)

// sessionHost is a host whose core declares one healthy MCP server, docs,
// whose connect and pids tool are approved by rule.
func sessionHost(t *testing.T) *Host {
	t.Helper()
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `fs.read, fs.write, "mcp.connect:*", "mcp.call:*"`, map[string]string{
		"docs": "command: " + filepath.Join(bins, "echo") + "\n",
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__docs", "allow:docs__pids"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// serverPid calls docs__pids in a turn of s and returns the server's pid.
func serverPid(t *testing.T, s *Session) int {
	t.Helper()
	turn, err := s.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c1", Name: "docs__pids", Args: []byte(`{}`)})
	// The card shows the result as the server gave it; the model view is
	// wrapped as untrusted (untrusted_test.go).
	pid, err := strconv.Atoi(strings.Fields(out.Views.Card.Body + " x")[0])
	if err != nil || !out.OK() {
		t.Fatalf("%s %q (warnings %q)", out.Status, out.Views.Model.String(), s.Warnings())
	}
	return pid
}

func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

func gone(pid int) bool {
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !running(pid) {
			return true
		}
	}
	return false
}

// TestDelegatedChildGetsHostIssuedAuthority: a child runs under an
// authority the host derives from its parent's, can only be narrowed, has
// MCP connections of its own, and they close when its run ends while the
// parent's stay.
func TestDelegatedChildGetsHostIssuedAuthority(t *testing.T) {
	h := sessionHost(t)
	ctx := context.Background()
	parent := h.Session()
	parentPid := serverPid(t, parent)

	for _, bad := range []Delegation{
		{Capabilities: []string{"terminal.exec"}},
		{Capabilities: []string{"secret.bind:GH_TOKEN"}},
		{Tools: []string{"read_file", "no_such_tool"}},
	} {
		if c, err := parent.Delegate(ctx, bad); err == nil {
			c.End()
			t.Fatalf("delegated %+v", bad)
		}
	}

	child, err := parent.Delegate(ctx, Delegation{
		Tools:        []string{"docs__pids", "read_file"},
		Capabilities: []string{"fs.read", "mcp.connect:docs", "mcp.call:docs"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ca, pa := child.Authority(), parent.Authority()
	if ca.Principal != pa.Principal || ca.CoreRevision != pa.CoreRevision || ca.Session == pa.Session || child.Parent() != parent.ID() {
		t.Fatalf("child authority %+v, parent %+v", ca, pa)
	}
	if ca.Capabilities.Has("fs.write") || !ca.Capabilities.Has("mcp.call:docs") || ca.Fingerprint() == pa.Fingerprint() {
		t.Fatalf("child capabilities %v", ca.Capabilities.List())
	}
	cat, err := child.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range cat.Entries() {
		names = append(names, e.Spec.Name)
	}
	if slices.Sort(names); strings.Join(names, ",") != "docs__pids,read_file" {
		t.Fatalf("child catalog %v", names)
	}
	childPid := serverPid(t, child)
	if childPid == parentPid {
		t.Fatal("the child called through its parent's connection")
	}
	// A tool left out of the selection is not the child's to call.
	turn, err := child.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out := turn.Call(ctx, dispatch.ToolCall{ID: "c2", Name: "write_file", Args: []byte(`{"path":"x","content":"y"}`)}); out.Status != dispatch.StatusUnknownTool {
		t.Fatal("the child called a tool it was not given")
	}
	// A grandchild cannot get back what the child lost.
	if _, err := child.Delegate(ctx, Delegation{Tools: []string{"write_file"}}); err == nil {
		t.Fatal("a grandchild was given a tool its parent lacks")
	}
	if _, err := child.Delegate(ctx, Delegation{Capabilities: []string{"fs.write"}}); err == nil {
		t.Fatal("a grandchild was given a capability its parent lacks")
	}

	child.End()
	if !gone(childPid) {
		t.Fatalf("the child's server %d outlived its run", childPid)
	}
	if !running(parentPid) || serverPid(t, parent) != parentPid {
		t.Fatal("ending the child closed the parent's connection")
	}
	if _, err := child.NewTurn(ctx); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("a turn of an ended child: %v", err)
	}
	// The child's own record names its parent.
	store, _ := h.Store()
	if rec, err := store.Session(pa.Principal, ca.Session); err != nil || rec.Parent != parent.ID() {
		t.Fatalf("%+v %v", rec, err)
	}

	// A child without mcp.connect connects nothing and says why.
	bare, err := parent.Delegate(ctx, Delegation{Capabilities: []string{"fs.read"}})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.End()
	if cat, err = bare.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup("docs__pids"); ok {
		t.Fatal("a child without mcp.connect:docs got its tools")
	}
	if st := bare.MCPStates(); len(st) != 1 || st[0].Status != mcp.StatusDenied {
		t.Fatalf("%+v", st)
	}
}

// TestSwitchingSessionsEvictsTheOld: a new or resumed session ends the
// old one (its children too) and closes their connections; a child's
// session, an unknown one and another principal's cannot be resumed.
func TestSwitchingSessionsEvictsTheOld(t *testing.T) {
	h := sessionHost(t)
	ctx := context.Background()
	first := h.Session()
	pid1 := serverPid(t, first)

	h.Approvals.Sessions.Grant(time.Now(), approval.Request{Tool: "read_file", Authority: first.Authority(), Fingerprint: "f"})
	second := h.NewSession()
	if n := len(h.Approvals.Sessions.List()); n != 0 {
		t.Fatalf("%d session approvals outlived their session", n)
	}
	if second.ID() == first.ID() || h.Session() != second || h.Authority().Session != second.ID() {
		t.Fatal("NewSession did not switch")
	}
	if !gone(pid1) {
		t.Fatal("the old session's server outlived the switch")
	}
	if _, err := first.NewTurn(ctx); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("a turn of a switched-away session: %v", err)
	}
	pid2 := serverPid(t, second)
	child, err := second.Delegate(ctx, Delegation{})
	if err != nil {
		t.Fatal(err)
	}
	pid3 := serverPid(t, child)

	back, err := h.ResumeSession(ctx, first.ID())
	if err != nil || back.ID() != first.ID() || h.Session() != back {
		t.Fatalf("%v", err)
	}
	if !gone(pid2) || !gone(pid3) {
		t.Fatal("the session switched away from, or its child, kept a server")
	}
	if pid := serverPid(t, back); pid == pid1 {
		t.Fatal("a resumed session reused a closed connection")
	}

	if _, err := h.ResumeSession(ctx, child.ID()); err == nil || !strings.Contains(err.Error(), "delegated child") {
		t.Fatalf("resumed a child's session: %v", err)
	}
	if _, err := h.ResumeSession(ctx, "ses_nosuch"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("%v", err)
	}
	store, _ := h.Store()
	if err := store.RecordSession(ctx, runtime.SessionRecord{ID: "ses_other", Principal: "local:someone-else"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ResumeSession(ctx, "ses_other"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("resumed another principal's session: %v", err)
	}
	recs, err := h.Sessions()
	if err != nil || len(recs) != 3 {
		t.Fatalf("%+v %v", recs, err)
	}
}

// TestEvictSessionClosesOnlyItsCatalogs: evicting one session closes its
// connections and no other's; its next turn connects again. Closing the
// host ends every session.
func TestEvictSessionClosesOnlyItsCatalogs(t *testing.T) {
	h := sessionHost(t)
	ctx := context.Background()
	parent := h.Session()
	child, err := parent.Delegate(ctx, Delegation{})
	if err != nil {
		t.Fatal(err)
	}
	pidP, pidC := serverPid(t, parent), serverPid(t, child)

	if !h.EvictSession(child.ID()) {
		t.Fatal("the child was not live")
	}
	if !gone(pidC) || !running(pidP) {
		t.Fatalf("evicting the child: child server running %v, parent's %v", running(pidC), running(pidP))
	}
	pidC2 := serverPid(t, child)
	if pidC2 == pidC {
		t.Fatal("no reconnect after eviction")
	}
	if !h.EvictSession(parent.ID()) || !gone(pidP) || !running(pidC2) {
		t.Fatal("evicting the parent reached past it")
	}
	if h.EvictSession("ses_nosuch") {
		t.Fatal("evicted a session that is not live")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if !gone(pidC2) {
		t.Fatal("a child's server outlived the host")
	}
}

// TestSessionRecordRetried: a turn whose context is already cancelled
// cannot record its session, and the next turn records it.
func TestSessionRecordRetried(t *testing.T) {
	h, err := Open(Options{CoreDir: writeCore(t, "toolsets: [coding]\ncapabilities: [fs.read]\n"), Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	s := h.Session()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.record(cancelled, store); err == nil {
		t.Fatal("recorded under a cancelled context")
	}
	if _, err := h.NewTurn(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Session(s.Authority().Principal, s.ID()); err != nil {
		t.Fatalf("the session was not recorded on its next turn: %v", err)
	}
}

// TestChildTasksEndWithItsRun: a delegated child's background tasks are
// cancelled when its run ends; the parent's run on.
func TestChildTasksEndWithItsRun(t *testing.T) {
	h := sessionHost(t)
	ctx := context.Background()
	parent := h.Session()
	child, err := parent.Delegate(ctx, Delegation{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := h.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	start := func(s *Session) runtime.Task {
		sc := s.TaskScope()
		task, err := m.Start(ctx, runtime.TaskSpec{Principal: sc.Principal, Session: sc.Session, Tool: "terminal"}, untilCancelled)
		if err != nil {
			t.Fatal(err)
		}
		return task
	}
	mine, theirs := start(child), start(parent)
	child.End()
	if got, err := m.Get(child.TaskScope(), mine.ID); err != nil || got.State != runtime.TaskCancelled {
		t.Fatalf("the child's task after its end: %s (%v)", got.State, err)
	}
	if got, err := m.Get(parent.TaskScope(), theirs.ID); err != nil || got.State.Terminal() {
		t.Fatalf("the parent's task after the child's end: %s (%v)", got.State, err)
	}
}

// TestDelegationDepthIsBounded: a chain of children stops at
// MaxDelegationDepth.
func TestDelegationDepthIsBounded(t *testing.T) {
	h, err := Open(Options{CoreDir: writeCore(t, "toolsets: [coding]\ncapabilities: [fs.read]\n"), Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s := h.Session()
	for range MaxDelegationDepth {
		if s, err = s.Delegate(context.Background(), Delegation{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Delegate(context.Background(), Delegation{}); err == nil || !strings.Contains(err.Error(), "delegations deep") {
		t.Fatalf("delegated past the bound: %v", err)
	}
}
