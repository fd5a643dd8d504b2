package toolhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/evolve"
)

// The evolver's file tools write only in its run's work tree: inside it
// a write runs; the live core's copy, the rest of the state directory, a
// sibling run, the parent's workspace and a symlink out of the tree are
// refused, even with an operator's allow rule for write_file.
func TestEvolverWritesOnlyItsWorkTree(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	h, r, live := hostOnRepo(t, Options{StateDir: state, Workspace: ws, Rules: []string{"allow:write_file"}})
	run, err := evolve.Start(r, "add a skill", "p")
	if err != nil {
		t.Fatal(err)
	}
	other, err := evolve.Start(r, "another", "p")
	if err != nil {
		t.Fatal(err)
	}
	eh, err := h.EvolverHost(state, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer eh.Close()
	tree := evolve.AgentsDir(state, run.ID)
	if eh.Workspace.Root != tree && eh.Workspace.Root != mustReal(t, tree) {
		t.Fatalf("the evolver's workspace is %s, not its run's work tree %s", eh.Workspace.Root, tree)
	}
	if err := os.Symlink(filepath.Join(state, "core"), filepath.Join(tree, "out")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	turn, err := eh.NewSession().NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string) dispatch.Outcome {
		args, _ := json.Marshal(map[string]any{"path": path, "content": "x\n", "create_dirs": true})
		return turn.Call(ctx, dispatch.ToolCall{ID: "w", Name: "write_file", Args: args})
	}
	if out := write("default/skills/notes/SKILL.md"); out.Status != dispatch.StatusOK {
		t.Fatalf("a write in the work tree: %s %s %+v", out.Status, out.Approval.Reason, out.Views)
	}
	if _, err := os.Stat(filepath.Join(tree, "default/skills/notes/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		corerepo.CoreDir(state, live, "default") + "/agent.yaml",
		filepath.Join(state, "core", "x"),
		filepath.Join(evolve.AgentsDir(state, other.ID), "default", "agent.yaml"),
		filepath.Join(evolve.Root(state), "meta", run.ID+".json"),
		filepath.Join(ws, "x"),
		"out/x",
		"../x",
	} {
		if out := write(p); out.Status == dispatch.StatusOK {
			t.Errorf("the evolver wrote %s", p)
		} else if !strings.Contains(out.Approval.Reason, "refused") && out.Status != dispatch.StatusDenied {
			t.Errorf("write %s: %s %s", p, out.Status, out.Approval.Reason)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "x")); err == nil {
		t.Fatal("the parent's workspace was written")
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
