package agents_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/corerepo"
	pt "demiurge.dev/host/providers/providertest"
)

// core_id: the parent's own core id runs the child; an id the core
// repository's revision does not hold is unknown, listing the ids it
// holds; an id it does hold (another core) is refused, never run under
// the parent's core. Nothing refused starts a task.
func TestCoreIDs(t *testing.T) {
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
	if err := os.MkdirAll(filepath.Join(work, "agents", "reviewer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "agents", "reviewer", "agent.yaml"), []byte("name: reviewer\ntoolsets: [coding]\ncapabilities: [fs.read]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Commit(work, "add reviewer", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	f := newFixtureState(t, agents.Limits{}, []pt.Step{child("own core child", pt.Step{Text: []string{"ok"}})}, "", state)
	if got := f.h.Session().CoreID(); got != "default" {
		t.Fatalf("the parent runs core %q", got)
	}
	c, err := spawn(t, f, f.h.Session(), "turn_c", agents.Request{Goal: "own core child", CoreID: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if r := wait(t, c); r.Status != agents.StatusCompleted {
		t.Fatalf("own core child: %+v", r)
	}
	for id, want := range map[string]string{
		"reviewer":   `core_id "reviewer": a child can run only its parent's core ("default") in this build`,
		"reviewr":    `unknown core_id "reviewr": the core repository's revision holds default, reviewer`,
		"Default":    `unknown core_id: core id "Default"`,
		"default/..": `unknown core_id: core id "default/.."`,
	} {
		if _, err := spawn(t, f, f.h.Session(), "turn_c", agents.Request{Goal: "never runs", CoreID: id}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("core_id %q: %v, want %q", id, err, want)
		}
	}
	tm, _ := f.h.Tasks()
	if ts, _ := tm.List(f.h.OperatorTaskScope()); len(ts) != 1 {
		t.Fatalf("%d tasks, want the own-core child's only", len(ts))
	}
}
