package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/plugins"
)

// TestCatalogCachedUntilAnInputChanges: a session's catalog is resolved
// once and handed out again while nothing it depends on changed; it is
// resolved again exactly when a plugin file's identity changes, when a
// plugin was left out (it may start next time), and when the session
// activates a deferred tool.
func TestCatalogCachedUntilAnInputChanges(t *testing.T) {
	state := t.TempDir()
	install(t, state, "textstats")
	bin := filepath.Join(InstalledPluginDir(state), plugins.BinaryPrefix+"textstats")
	h, err := open(t, "", state)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	get := func() *catalog.Catalog {
		t.Helper()
		cat, err := h.Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	first := get()
	if get() != first {
		t.Fatal("nothing changed, yet the catalog was resolved again")
	}
	// The same bytes, another modification time: another identity.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	second := get()
	if second == first {
		t.Fatal("a plugin file changed, yet the cached catalog was handed out")
	}
	if _, ok := second.Lookup("text_stats"); !ok || get() != second {
		t.Fatal("the new catalog is not whole or not cached in turn")
	}
	// Rewritten in place (the running plugin goes on serving): resolved
	// again all the same.
	orig, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, append(orig, "tampered"...), 0o755); err != nil {
		t.Fatal(err)
	}
	if get() == second {
		t.Fatal("a rewritten plugin file did not resolve the catalog again")
	}
}

// A plugin left out of the catalog (it would not start) may start next
// time without any file changing: such a catalog is never kept.
func TestCatalogWithALeftOutPluginNotCached(t *testing.T) {
	state := t.TempDir()
	install(t, state, "textstats")
	bin := filepath.Join(InstalledPluginDir(state), plugins.BinaryPrefix+"textstats")
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("tampered")
	f.Close()
	h, cat := resolved(t, "", state)
	if _, ok := cat.Lookup("text_stats"); ok {
		t.Fatal("a refused plugin's tool is in the catalog")
	}
	again, err := h.Catalog(context.Background())
	if err != nil || again == cat {
		t.Fatalf("a catalog with a left-out plugin was cached (%v)", err)
	}
}

func TestCatalogCacheSeesActivations(t *testing.T) {
	dir := writeCore(t, "toolsets: [coding, demiurge_control]\ncapabilities: [fs.read, fs.write, network.fetch]\ntools:\n  deferred: [web_extract, terminal]\n")
	h, err := open(t, dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	turn, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.NewTurn(ctx)
	if err != nil || again.Catalog != turn.Catalog {
		t.Fatalf("not cached: %v", err)
	}
	if o := turnCall(t, turn, "search_capabilities", map[string]any{"query": "web_extract"}); !o.OK() {
		t.Fatalf("search: %s %q", o.Status, o.Views.Model.String())
	}
	next, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next.Catalog == turn.Catalog {
		t.Fatal("an activation did not resolve the catalog again")
	}
	if !slices.Contains(definitionNames(t, next.Catalog), "web_extract") {
		t.Fatal("the activated tool is not offered")
	}
}

// A versioned core's authored tools are files of its commit's read-only
// copy: its catalog is cached (the commit id covers them); a plain
// --core DIR's is cached too, keyed by its tools' files
// (TestCatalogOfAPlainCoreFollowsItsAuthoredTools).
func TestCatalogOfAVersionedCoreWithAuthoredToolsIsCached(t *testing.T) {
	withAuthored(t)
	state := t.TempDir()
	r, live := stateRepo(t, state)
	work := checkout(t, r, live)
	agent := "toolsets: [coding]\ncapabilities: [fs.read, tool.call:project_note]\nslots: {tools: agent/tools}\n"
	plain := authoredCore(t, agent, map[string][2]string{"project_note": {noteTool, noteModule}})
	if err := os.RemoveAll(filepath.Join(work, "agents/default")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(work, "agents/default"), os.DirFS(plain)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Commit(work, "an authored tool", nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		core   string
		cached bool
	}{{"", true}, {plain, true}} {
		h, err := Open(Options{CoreDir: tt.core, StateDir: state, Workspace: t.TempDir(), BuiltinPluginDir: builtinDir})
		if err != nil {
			t.Fatal(err)
		}
		first, err := h.Catalog(context.Background())
		if err != nil {
			h.Close()
			t.Fatal(err)
		}
		second, _ := h.Catalog(context.Background())
		h.Close()
		if _, ok := first.Lookup("project_note"); !ok {
			t.Fatalf("core %q: project_note is not in the catalog", tt.core)
		}
		if (first == second) != tt.cached {
			t.Errorf("core %q: cached = %v, want %v", tt.core, first == second, tt.cached)
		}
	}
}
