package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/core"
	"demiurge.dev/host/runtime"
)

// The bootstrap snapshot is made on a session's first use and stored with
// it: a later AGENTS.md edit reaches a new session, not the old one.
func TestBootstrapSnapshotIsStoredWithTheSession(t *testing.T) {
	ws := t.TempDir()
	agents := filepath.Join(ws, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("first rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{StateDir: t.TempDir(), Workspace: ws, BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	hook := h.BootstrapInstruction()
	ctx := context.Background()
	text, err := hook(ctx)
	if err != nil || !strings.Contains(text, "first rules") {
		t.Fatalf("first turn: %q %v", text, err)
	}
	old := h.Session()
	if err := os.WriteFile(agents, []byte("second rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, _ := hook(ctx); !strings.Contains(text, "first rules") {
		t.Fatalf("the session's snapshot changed under it: %q", text)
	}
	snap, err := h.BootstrapSnapshot(ctx, old)
	if err != nil || snap.CoreRevision != h.Core.Revision || snap.Parts[0].Slot != "project_instructions" {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
	h.NewSession()
	if text, _ := hook(ctx); !strings.Contains(text, "second rules") {
		t.Fatalf("a new session got the old snapshot: %q", text)
	}
}

// An authored bootstrap slot (real Python, the authored runtime, the
// sandbox) runs once per session: its part joins the stored snapshot
// beside project_instructions, a second turn reads the stored one (one
// audit event, not two), and a new session runs it again. A bootstrap
// stage that fails stores nothing, so the next turn tries again.
func TestAuthoredBootstrapSlotRunsOncePerSession(t *testing.T) {
	withAuthored(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Use tabs.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := slotCore(t, map[string][2]string{
		"repo_map": {"description: lists the workspace\n", `import os
def run(ctx, args):
    if os.path.exists(os.path.join(ctx.workspace, "BREAK")):
        raise RuntimeError("no map today")
    return {"context": "repo map (%s): %s" % (args["stage"], ", ".join(sorted(os.listdir(ctx.workspace))))}
`},
	})
	if err := os.WriteFile(filepath.Join(dir, core.PipelinesFile), []byte("bootstrap: [project_instructions, repo_map]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{CoreDir: dir, Workspace: ws, StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	runs := func() []runtime.Event {
		t.Helper()
		// An Append takes the submitted events along in its commit.
		if _, err := store.Append(context.Background(), runtime.Event{Kind: "test.flush"}); err != nil {
			t.Fatal(err)
		}
		evs, err := store.Events(runtime.EventQuery{Kind: EventKindSlotRun})
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	ctx := context.Background()
	hook := h.BootstrapInstruction()
	// A failing stage (failure_policy fail) ends the turn and stores nothing.
	if err := os.WriteFile(filepath.Join(ws, "BREAK"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := hook(ctx); err == nil || err.Error() != "pipeline slot repo_map failed: repo_map raised RuntimeError: no map today" {
		t.Fatalf("failing bootstrap: %v", err)
	}
	if err := os.Remove(filepath.Join(ws, "BREAK")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		text, err := hook(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "Use tabs.") || !strings.HasSuffix(text, "repo map (bootstrap): AGENTS.md, main.go") {
			t.Fatalf("snapshot text:\n%s", text)
		}
	}
	evs := runs()
	if len(evs) != 2 {
		t.Fatalf("%d slot-run events, want 2 (the failed run and the one run of the session)", len(evs))
	}
	for i, want := range []string{`"outcome":"error"`, `"outcome":"ok"`} {
		d := string(evs[i].Data)
		if evs[i].Tool != "slot:repo_map" || evs[i].Session != h.Session().ID() || !strings.Contains(d, `"slot":"repo_map","stage":"bootstrap",`+want) ||
			!strings.Contains(d, `"failure_policy":"fail","duration_ms":`) || !strings.Contains(d, `"core_revision":"`+h.Core.Revision+`"`) {
			t.Errorf("event %d: %s %s", i, evs[i].Tool, d)
		}
	}
	h.NewSession()
	if _, err := hook(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(runs()); n != 3 {
		t.Fatalf("a new session: %d slot-run events, want 3", n)
	}
}
