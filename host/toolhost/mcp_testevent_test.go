package toolhost

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/mcp"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/runtime"
)

// TestMCPTestIsAudited: `mcp test` writes the mcp.connect event a turn
// writes, for a connect and for a refusal alike, and answers only once it
// is on disk (read at once, no waiting: an `audit` right after shows it).
func TestMCPTestIsAudited(t *testing.T) {
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `fs.read, "mcp.connect:*", "mcp.call:*"`, map[string]string{
		"docs":   "command: " + filepath.Join(bins, "echo") + "\n",
		"asking": "command: " + filepath.Join(bins, "echo") + "\n",
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__docs"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for server, want := range map[string]mcp.Status{"docs": mcp.StatusConnected, "asking": mcp.StatusDenied} {
		if st, err := h.TestMCP(context.Background(), server); err != nil || st.Status != want {
			t.Fatalf("%s: %+v %v", server, st, err)
		}
	}
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	evs, err := store.Events(runtime.EventQuery{Kind: "mcp.connect"})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, ev := range evs {
		all = append(all, string(ev.Data))
	}
	got := strings.Join(all, "\n")
	if !strings.Contains(got, `"server":"docs","status":"connected"`) || !strings.Contains(got, `"server":"asking","status":"denied"`) {
		t.Fatalf("mcp.connect events of mcp test:\n%s", got)
	}
}
