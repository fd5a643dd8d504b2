package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/host/corerepo"
)

// Without --core the host runs the default core of the repository it
// creates under the state directory on first use, read from the commit's
// read-only copy, and the commit id is the revision in its authority.
func TestOpenRunsTheDefaultCoreFromTheRepository(t *testing.T) {
	state := t.TempDir()
	h, err := Open(Options{StateDir: state, Workspace: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	r, err := corerepo.Open(state)
	if err != nil {
		t.Fatalf("no repository after first use: %v", err)
	}
	live, _ := r.Live()
	if h.Core.Version == nil || h.Core.Version.Commit != live || h.Core.Revision != live {
		t.Fatalf("core %+v revision %s, want commit %s", h.Core.Version, h.Core.Revision, live)
	}
	if h.rootAuthority.CoreRevision != live {
		t.Fatalf("authority revision %s, want the commit %s", h.rootAuthority.CoreRevision, live)
	}
	if want := corerepo.CoreDir(state, live, "default"); h.Core.Dir != want {
		t.Fatalf("core read from %s, want the copy %s", h.Core.Dir, want)
	}
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup("read_file"); !ok {
		t.Fatal("the default core from the repository has no read_file")
	}
}

func TestCoreIDPicksAnotherCoreAndUnknownSuggests(t *testing.T) {
	state := t.TempDir()
	r, live := stateRepo(t, state)
	work := checkout(t, r, live)
	writeRepoCore(t, filepath.Join(work, "agents/reviewer"), "name: reviewer\ntoolsets: [coding]\ncapabilities: [fs.read]\n")
	opts := GateOptions{StateDir: state, BuiltinPluginDir: builtinDir}
	_, commit, err := r.Commit(work, "reviewer", func(tree string) error { return Gate(context.Background(), tree, opts) })
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{StateDir: state, CoreID: "reviewer", Workspace: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.Core.Name != "reviewer" || h.Core.Revision != commit {
		t.Fatalf("core %q at %s, want reviewer at %s", h.Core.Name, h.Core.Revision, commit)
	}
	_, err = Open(Options{StateDir: state, CoreID: "reviewr", Workspace: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err == nil || !strings.Contains(err.Error(), `core "reviewr" does not exist`) || !strings.Contains(err.Error(), `did you mean "reviewer"?`) {
		t.Fatalf("unknown core id: %v", err)
	}
	_, err = Open(Options{StateDir: state, CoreID: "reviewer", CoreDir: work, BuiltinPluginDir: builtinDir})
	if err == nil || !strings.Contains(err.Error(), "give one of them") {
		t.Fatalf("--core with --core-id: %v", err)
	}
}

// A failing gate names the file, line and field, and moves nothing.
func TestGateRefusesACoreThatDoesNotLoadOrResolve(t *testing.T) {
	state := t.TempDir()
	r, live := stateRepo(t, state)
	opts := GateOptions{StateDir: state, BuiltinPluginDir: builtinDir}
	gate := func(tree string) error { return Gate(context.Background(), tree, opts) }
	for name, tc := range map[string]struct{ yaml, want string }{
		"bad field":      {"name: x\ntoolsets: [coding]\ncapabilitees: [fs.read]\n", `agents/x/agent.yaml:3:1: capabilitees: unknown key "capabilitees" (did you mean "capabilities"?)`},
		"missing plugin": {"name: x\ntoolsets: [coding, lint]\n", "needs the plugin demiurge-toolset-lint"},
	} {
		t.Run(name, func(t *testing.T) {
			work := checkout(t, r, live)
			writeRepoCore(t, filepath.Join(work, "agents/x"), tc.yaml)
			_, _, err := r.Commit(work, "x", gate)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("gate: %v\nwant %s", err, tc.want)
			}
			if now, _ := r.Live(); now != live {
				t.Fatal("live moved past a failing gate")
			}
		})
	}
}

func writeRepoCore(t *testing.T, dir, agentYAML string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(agentYAML), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The core the host runs is out of every tool's reach: its copy and the
// repository lie in the state directory, which tools may not touch, and
// the sandbox holds both read-only under commands, also when the
// workspace contains the state directory.
func TestTheRunningCoreIsOutOfTheAgentsReach(t *testing.T) {
	ws := t.TempDir()
	state := filepath.Join(ws, ".state")
	h, err := Open(Options{StateDir: state, Workspace: ws, BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, p := range []string{h.Core.File, corerepo.GitDir(state) + "/refs/demiurge/live"} {
		if !h.Workspace.InState(p) {
			t.Errorf("%s is not in the host's state as tools see it", p)
		}
	}
	want := []string{corerepo.TreeDir(state, h.Core.Version.Commit), corerepo.GitDir(state)}
	for _, w := range want {
		found := false
		for _, p := range h.Sandbox.Protected {
			found = found || p == w
		}
		if !found {
			t.Errorf("the sandbox does not hold %s read-only (protected: %v)", w, h.Sandbox.Protected)
		}
	}
}

// A toolset plugin installed by path that writes the workspace holds
// read-only what a command's sandbox holds (the core, the host's own
// files): the host hands the plugins the sandbox's two lists.
func TestAWritingPluginHoldsWhatTheSandboxHolds(t *testing.T) {
	ws := t.TempDir()
	h, err := Open(Options{StateDir: filepath.Join(ws, ".state"), Workspace: ws, BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	want := slices.Concat(h.Sandbox.Protected, h.Sandbox.HostOwned)
	if got := h.Plugins.Held(); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("the plugins hold %v, the sandbox %v", got, want)
	}
}

// A running host marks its core's copy in use: two commits later (its
// commit neither live nor previous) the copy stays while the host runs,
// and goes at the first collection after it closed.
func TestARunningHostsCopyIsNotCollected(t *testing.T) {
	state := t.TempDir()
	h, err := Open(Options{StateDir: state, Workspace: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	r, err := corerepo.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	running, _ := r.Live()
	work := checkout(t, r, running)
	for _, name := range []string{"a", "b"} {
		writeRepoCore(t, filepath.Join(work, "agents", name), "name: "+name+"\n")
		if _, _, err := r.Commit(work, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.Core.Dir, "agent.yaml")); err != nil {
		t.Fatalf("the running host's core copy was collected: %v", err)
	}
	h.Close()
	removed, err := r.CollectTrees()
	if err != nil || len(removed) != 1 || removed[0] != running {
		t.Fatalf("after Close: removed %v, %v; want the old copy %s", removed, err, running)
	}
}
