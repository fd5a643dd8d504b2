package agents_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/corerepo"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/sandbox"
)

// reviewerCore is a second core that grants more than the default core
// in every way a core can: an allow rule for write_file, a capability
// the default lacks (mcp.call:*), a toolset the default lacks (schedule),
// and it lacks delegate_task's toolset.
const reviewerCore = `name: reviewer
toolsets: [coding, schedule]
capabilities: [fs.read, fs.write, terminal.exec, "mcp.call:*", schedule.manage]
approvals: ["allow:write_file"]
`

// repoWithCores is a state directory whose core repository's live
// revision holds default and the given cores (id: agent.yaml).
func repoWithCores(t testing.TB, cores map[string]string) string {
	t.Helper()
	state := t.TempDir()
	r, err := corerepo.OpenOrInit(state)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := r.Live()
	work := filepath.Join(t.TempDir(), "w")
	if err := r.Checkout(live, work); err != nil {
		t.Fatal(err)
	}
	for id, yaml := range cores {
		if err := os.MkdirAll(filepath.Join(work, "agents", id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, "agents", id, "agent.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := r.Commit(work, "add cores", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	return state
}

// core_id runs a core other than the parent's: the child's tools are the
// parent's that the other core has too, its capabilities what both hold,
// and the other core's allow rule approves nothing (the write it would
// approve is asked, and with no one to ask, denied).
func TestChildRunsAnotherCore(t *testing.T) {
	state := repoWithCores(t, map[string]string{"reviewer": reviewerCore})
	f := newFixtureState(t, agents.Limits{}, []pt.Step{
		child("review it", pt.Step{ToolCalls: []pt.ToolCall{{ID: "w1", Name: "write_file", Args: `{"path":"out.txt","content":"x"}`}}}),
		child("review it", pt.Step{Text: []string{"reviewed"}}),
	}, "", state)
	root := f.h.Session()
	c, err := spawn(t, f, root, "turn_c2", agents.Request{Goal: "review it", CoreID: "reviewer"})
	if err != nil {
		t.Fatal(err)
	}
	r := wait(t, c)
	if r.Status != agents.StatusCompleted || r.Answer != "reviewed" {
		t.Fatalf("the reviewer child: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "out.txt")); err == nil {
		t.Fatal("the reviewer core's allow rule approved a write no one was asked about")
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "write_file was not approved") || !strings.Contains(string(reqs[0].Body), `"name":"write_file"`) ||
		strings.Contains(string(reqs[0].Body), `"name":"delegate_task"`) || strings.Contains(string(reqs[0].Body), `"name":"schedule_manage"`) {
		t.Fatalf("the child's requests: want write_file offered, delegate_task not, and the write denied: %s", reqs[len(reqs)-1].Body)
	}
	tm, _ := f.h.Tasks()
	task := ended(t, tm, f.h.OperatorTaskScope(), c.TaskID)
	var meta agents.Meta
	if err := json.Unmarshal(task.Agent, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Core != "reviewer" || meta.Requested.CoreID != "reviewer" {
		t.Fatalf("meta core %q, requested %q", meta.Core, meta.Requested.CoreID)
	}
	if slices.Contains(meta.Resolved.Tools, "delegate_task") || !slices.Contains(meta.Resolved.Tools, "read_file") {
		t.Fatalf("the reviewer child's tools %v: the reviewer core's coding tools only; %s", meta.Resolved.Tools, task.Agent)
	}
}

// The other core never widens: a narrowed parent's child of another core
// stays narrowed, and holds only capabilities both the parent and that
// core hold.
func TestAnotherCoreNeverWidens(t *testing.T) {
	// The parent's core grants schedule.manage too, but has no schedule
	// toolset: schedule_manage is a tool of the reviewer core only.
	def := "name: default\ntoolsets: [coding, demiurge_control]\n" +
		"capabilities: [fs.read, fs.write, terminal.exec, session.read, tool.call:delegate_task, schedule.manage]\n"
	state := repoWithCores(t, map[string]string{"default": def, "reviewer": reviewerCore})
	f := newFixtureState(t, agents.Limits{}, nil, "", state)
	ctx := context.Background()
	root := f.h.Session()
	rh, err := f.h.CoreHost("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := f.h.CoreHost("reviewer"); again != rh {
		t.Fatal("the reviewer core's host was opened twice")
	}
	child, err := root.DelegateTo(ctx, rh, toolhost.Delegation{})
	if err != nil {
		t.Fatal(err)
	}
	caps := child.Authority().Capabilities
	for _, g := range []string{"mcp.call:docs", "tool.call:delegate_task", "network.fetch", "session.read"} {
		if caps.Has(g) {
			t.Errorf("the child of another core holds %s, which its parent or that core lacks", g)
		}
	}
	if !caps.Has("fs.read") || !caps.Has("schedule.manage") {
		t.Errorf("the child lacks fs.read, which both hold: %v", caps.List())
	}
	if child.CoreID() != "reviewer" || child.Authority().CoreRevision != rh.Core.Revision {
		t.Fatalf("the child runs %q at %q", child.CoreID(), child.Authority().CoreRevision)
	}
	names := catalogNames(t, child)
	if slices.Contains(names, "delegate_task") || slices.Contains(names, "schedule_manage") || !slices.Contains(names, "write_file") {
		t.Fatalf("the child's tools %v", names)
	}
	narrow, err := root.Delegate(ctx, toolhost.Delegation{Tools: []string{"read_file"}})
	if err != nil {
		t.Fatal(err)
	}
	grand, err := narrow.DelegateTo(ctx, rh, toolhost.Delegation{})
	if err != nil {
		t.Fatal(err)
	}
	if names := catalogNames(t, grand); !slices.Equal(names, []string{"read_file"}) {
		t.Fatalf("a narrowed parent's child of another core has %v, want read_file only", names)
	}
	if _, err := narrow.DelegateTo(ctx, rh, toolhost.Delegation{Tools: []string{"write_file"}}); err == nil {
		t.Fatal("a child of another core got a tool its narrowed parent lacks")
	}
	if _, err := root.DelegateTo(ctx, rh, toolhost.Delegation{Tools: []string{"delegate_task"}}); err == nil ||
		!strings.Contains(err.Error(), "not tools of core reviewer") {
		t.Fatalf("a tool the other core lacks: %v", err)
	}
}

func catalogNames(t *testing.T, s *toolhost.Session) []string {
	t.Helper()
	cat, err := s.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range cat.Entries() {
		names = append(names, e.Spec.Name)
	}
	slices.Sort(names)
	return names
}

// Every other spelling of a core id is unknown and lists the ids there
// are; a core that does not load is refused with its error; a plain
// --core directory names no other core. Nothing refused starts a task.
func TestCoreIDRefusals(t *testing.T) {
	state := repoWithCores(t, map[string]string{"reviewer": reviewerCore, "broken": "name: broken\ntoolsets: [no_such_toolset]\n"})
	f := newFixtureState(t, agents.Limits{}, nil, "", state)
	for _, id := range []string{"Reviewer", "REVIEWER", "reviewer/", "./reviewer", "../reviewer", "agents/reviewer", " reviewer", "reviewer ", "reviewr", "..", "default/.."} {
		_, err := spawn(t, f, f.h.Session(), "turn_r", agents.Request{Goal: "never runs", CoreID: id})
		if err == nil || !strings.Contains(err.Error(), "unknown core_id") || !strings.Contains(err.Error(), "holds broken, default, evolver, reviewer") {
			t.Errorf("core_id %q: %v", id, err)
		}
	}
	if _, err := spawn(t, f, f.h.Session(), "turn_r", agents.Request{Goal: "never runs", CoreID: "broken"}); err == nil ||
		!strings.Contains(err.Error(), `core_id "broken" does not load`) || !strings.Contains(err.Error(), "no_such_toolset") {
		t.Errorf("a core that does not load: %v", err)
	}
	tm, _ := f.h.Tasks()
	if ts, _ := tm.List(f.h.OperatorTaskScope()); len(ts) != 0 {
		t.Fatalf("refused children left tasks: %+v", ts)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte("name: plain\ntoolsets: [coding]\ncapabilities: [fs.read]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newFixtureState(t, agents.Limits{}, nil, dir, t.TempDir())
	if _, err := spawn(t, p, p.h.Session(), "turn_p", agents.Request{Goal: "never runs", CoreID: "reviewer"}); err == nil ||
		!strings.Contains(err.Error(), "plain core directory") {
		t.Errorf("a plain --core session named another core: %v", err)
	}
}

// ended is the task's record once its end is recorded (a child's result
// is handed to its waiters just before).
func ended(t *testing.T, tm *runtime.TaskManager, scope runtime.TaskScope, id string) runtime.Task {
	t.Helper()
	task, _, err := tm.Wait(context.Background(), scope, id, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// A child of another core runs in the tighter of the two cores'
// sandboxes: neither core loosens the other's.
func TestAnotherCoreSandboxIsTheTighter(t *testing.T) {
	for _, c := range []struct{ parent, other string }{
		{"sandbox: {mode: read-only}\n", ""},
		{"", "sandbox: {mode: read-only}\n"},
	} {
		def := "name: default\ntoolsets: [coding, demiurge_control]\ncapabilities: [fs.read, tool.call:delegate_task]\n" + c.parent
		state := repoWithCores(t, map[string]string{"default": def, "reviewer": reviewerCore + c.other})
		f := newFixtureState(t, agents.Limits{}, nil, "", state)
		rh, err := f.h.CoreHost("reviewer")
		if err != nil {
			t.Fatal(err)
		}
		if rh.Sandbox.Mode != sandbox.ReadOnly {
			t.Errorf("parent %q, other %q: the other core's host runs %s", c.parent, c.other, rh.Sandbox.Mode)
		}
	}
}
