package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/mcp/mcptest"
)

// catalogOf resolves s's catalog, failing the test on an error.
func catalogOf(t *testing.T, s *Session) *catalog.Catalog {
	t.Helper()
	cat, err := s.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestCatalogOfAPlainCoreFollowsItsAuthoredTools: a plain --core DIR's
// authored tools are files that may change at any time; its catalog is
// cached while they do not, and resolved again exactly when one does: a
// tool.yaml rewritten (same size, same modification time), a module
// touched, a tool added. (What the resolution then finds is the authored
// runtime's description, taken when it started: unchanged by the cache.)
func TestCatalogOfAPlainCoreFollowsItsAuthoredTools(t *testing.T) {
	withAuthored(t)
	dir := authoredCore(t, "toolsets: [coding]\ncapabilities: [fs.read, \"tool.call:*\"]\nslots: {tools: agent/tools}\n",
		map[string][2]string{"project_note": {noteTool, noteModule}})
	h, err := open(t, dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := h.Session()
	first := catalogOf(t, s)
	if catalogOf(t, s) != first {
		t.Fatal("nothing changed, yet the catalog was resolved again")
	}
	toolYAML := filepath.Join(dir, "agent", "tools", "project_note", "tool.yaml")
	fi, err := os.Stat(toolYAML)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(noteTool, "Append a line to NOTES.md.", "Append a note to NOTES.md.", 1)
	if len(edited) != len(noteTool) {
		t.Fatal("the edit must keep the size")
	}
	if err := os.WriteFile(toolYAML, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(toolYAML, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	second := catalogOf(t, s)
	if second == first {
		t.Fatal("tool.yaml changed, yet the cached catalog was handed out")
	}
	if catalogOf(t, s) != second {
		t.Fatal("the new catalog is not cached in turn")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "agent", "tools", "project_note", "module.py"), later, later); err != nil {
		t.Fatal(err)
	}
	third := catalogOf(t, s)
	if third == second {
		t.Fatal("a module changed, yet the cached catalog was handed out")
	}
	td := filepath.Join(dir, "agent", "tools", "other_note")
	if err := os.MkdirAll(td, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(td, "module.py"), []byte(noteModule), 0o644)
	os.WriteFile(filepath.Join(td, "tool.yaml"), []byte(strings.ReplaceAll(noteTool, "project_note", "other_note")), 0o644)
	fourth := catalogOf(t, s)
	if fourth == third {
		t.Fatal("a tool was added, yet the cached catalog was handed out")
	}
	if catalogOf(t, s) != fourth {
		t.Fatal("the new catalog is not cached in turn")
	}
}

// TestCatalogOfAnMCPCoreFollowsItsServers: a core with MCP servers has
// its catalog cached once every server is settled (connected or
// disabled), and resolved again exactly when the MCP state changes: a
// server's process dies, a declaration is added or removed. A server
// that is not settled (denied: an approval may come; failed: a retry is
// due) keeps every step resolving.
func TestCatalogOfAnMCPCoreFollowsItsServers(t *testing.T) {
	bins := mcptest.Servers(t)
	h := sessionHost(t)
	s := h.Session()
	first := catalogOf(t, s) // connects docs
	second := catalogOf(t, s)
	if catalogOf(t, s) != second {
		t.Fatal("every server connected and nothing changed, yet the catalog was resolved again")
	}
	if _, ok := second.Lookup("docs__echo"); !ok || second == first {
		t.Fatal("docs__echo is not in the catalog")
	}
	// A declaration added (and connected).
	mcpDir := filepath.Join(h.Core.MCPRoot)
	mcptest.Manifest(t, mcpDir, "more", "command: "+filepath.Join(bins, "echo")+"\nenabled: false\n")
	third := catalogOf(t, s)
	if third == second {
		t.Fatal("a server was declared, yet the cached catalog was handed out")
	}
	if catalogOf(t, s) != third {
		t.Fatal("a disabled server is settled, yet the catalog was not cached")
	}
	// The server's process dies: its tools leave the catalog at once.
	pid := serverPid(t, s)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The host notices the exit when it reaps the process; until then
	// the uncached resolution would offer the tools too.
	var fourth *catalog.Catalog
	for deadline := time.Now().Add(10 * time.Second); ; {
		fourth = catalogOf(t, s)
		if _, ok := fourth.Lookup("docs__echo"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server died, yet its tools are still offered")
		}
		time.Sleep(10 * time.Millisecond) // waiting for the exit to be reaped
	}
	// Failed, with a retry due: not settled, never cached.
	if again := catalogOf(t, s); again == fourth || catalogOf(t, s) == again {
		t.Fatal("a failed server's catalog was cached")
	}
	// A declaration removed.
	if err := os.Remove(filepath.Join(mcpDir, "more.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(mcpDir, "docs.yaml")); err != nil {
		t.Fatal(err)
	}
	fifth := catalogOf(t, s)
	if catalogOf(t, s) != fifth {
		t.Fatal("no server left and nothing changed, yet the catalog was resolved again")
	}
	mcptest.Manifest(t, mcpDir, "docs", "command: "+filepath.Join(bins, "echo")+"\n")
	// Declared again within its retry window: failed, so resolved again.
	if catalogOf(t, s) == fifth {
		t.Fatal("a server was declared again, yet the cached catalog was handed out")
	}
}

// TestCatalogOfADeniedMCPServerIsNotCached: a server whose connect is
// not approved may be approved at the next step; its session's catalog
// is resolved at every step.
func TestCatalogOfADeniedMCPServerIsNotCached(t *testing.T) {
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `fs.read, "mcp.connect:*", "mcp.call:*"`, map[string]string{
		"asking": "command: " + filepath.Join(bins, "echo") + "\n",
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s := h.Session()
	a, b, c := catalogOf(t, s), catalogOf(t, s), catalogOf(t, s)
	if a == b || b == c {
		t.Fatal("a denied server's catalog was cached")
	}
}

// TestCatalogForOneToolIsNotKept: the operator's call of one tool resolves
// only the MCP servers that may offer it; that catalog is not the
// session's, so it is never cached for the next step.
func TestCatalogForOneToolIsNotKept(t *testing.T) {
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `fs.read, "mcp.connect:*", "mcp.call:*"`, map[string]string{
		"docs": "command: " + filepath.Join(bins, "echo") + "\n",
		"more": "command: " + filepath.Join(bins, "echo") + "\n",
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__docs", "allow:mcp_connect__more"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s := h.Session()
	catalogOf(t, s) // connects both
	if _, ok := catalogOf(t, s).Lookup("more__echo"); !ok {
		t.Fatalf("more__echo missing: %q", s.Warnings())
	}
	// A new (disabled) declaration: the next resolution is a miss while
	// the pool is settled.
	mcptest.Manifest(t, h.Core.MCPRoot, "zzz", "command: "+filepath.Join(bins, "echo")+"\nenabled: false\n")
	turn, err := s.NewTurnWith(context.Background(), TurnOptions{Tool: "docs__echo"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := turn.Catalog.Lookup("docs__echo"); !ok {
		t.Fatal("the named tool is not in its turn's catalog")
	}
	if _, ok := catalogOf(t, s).Lookup("more__echo"); !ok {
		t.Fatal("the next step got the one-tool catalog: more__echo is missing")
	}
}
