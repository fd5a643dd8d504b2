package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/mcp"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/netpolicy"
)

// mcpCore writes a core with slots.mcp and the given manifests.
func mcpCore(t *testing.T, caps string, manifests map[string]string) string {
	t.Helper()
	dir := writeCore(t, "toolsets: [coding]\nslots: {mcp: agent/mcp}\ncapabilities: ["+caps+"]\n")
	for id, body := range manifests {
		mcptest.Manifest(t, filepath.Join(dir, "agent", "mcp"), id, body)
	}
	if len(manifests) == 0 {
		if err := os.MkdirAll(filepath.Join(dir, "agent", "mcp"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestMCPToolsJoinTheCatalog: an approved server's tools sit beside the
// built-in ones, bound to the MCP adapter; a denied or failed server is a
// warning and a state, never a failed catalog.
func TestMCPToolsJoinTheCatalog(t *testing.T) {
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `fs.read, "mcp.connect:*", "mcp.call:*"`, map[string]string{
		"docs":   "command: " + filepath.Join(bins, "echo") + "\n",
		"hang":   "command: " + filepath.Join(bins, "hang_init") + "\nconnect_timeout_seconds: 1\n",
		"asking": "command: " + filepath.Join(bins, "echo") + "\n",
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__docs", "allow:mcp_connect__hang"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e, ok := cat.Lookup("docs__echo")
	if !ok {
		t.Fatalf("docs__echo missing; warnings %q", h.Warnings())
	}
	if _, isMCP := e.Binding.(*mcp.Adapter); !isMCP || e.Spec.Provenance.Kind != "mcp" {
		t.Fatalf("%T %+v", e.Binding, e.Spec.Provenance)
	}
	if _, ok := cat.Lookup("read_file"); !ok {
		t.Fatal("built-in tools are gone")
	}
	warn := strings.Join(h.Warnings(), "\n")
	if !strings.Contains(warn, "MCP server hang failed: no answer to initialize") || !strings.Contains(warn, "retried after") ||
		!strings.Contains(warn, "MCP server asking is not connected: connect was not approved") {
		t.Fatalf("warnings:\n%s", warn)
	}
	states := map[string]mcp.Status{}
	for _, s := range h.MCPStates() {
		states[s.Server] = s.Status
	}
	if states["docs"] != mcp.StatusConnected || states["hang"] != mcp.StatusFailed || states["asking"] != mcp.StatusDenied {
		t.Fatalf("%v", states)
	}
	// Each server's standing is audited once, when it changes.
	if _, err := h.Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	var evs []runtime.Event
	for deadline := time.Now().Add(3 * time.Second); len(evs) < 3 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if evs, err = store.Events(runtime.EventQuery{Kind: "mcp.connect"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, ev := range evs {
		got = append(got, string(ev.Data))
	}
	if len(evs) != 3 || !strings.Contains(strings.Join(got, "\n"), `"server":"docs","status":"connected","tools":4`) {
		t.Fatalf("events:\n%s", strings.Join(got, "\n"))
	}
	// mcp test goes through the gate too.
	if st, err := h.TestMCP(context.Background(), "asking"); err != nil || st.Status != mcp.StatusDenied {
		t.Fatalf("%+v %v", st, err)
	}
	if _, err := h.TestMCP(context.Background(), "nosuch"); err == nil {
		t.Fatal("tested an undeclared server")
	}
}

// TestMCPURLDecisionEvents: every HTTP request of an MCP server leaves a
// secret-safe mcp.url_decision event in the store.
func TestMCPURLDecisionEvents(t *testing.T) {
	// A refused URL needs no server: the first request is the decision.
	dir := mcpCore(t, `"mcp.connect:*", "mcp.call:*"`, map[string]string{
		"web": "url: http://metadata.test/mcp?key=qs-secret-1\nconnect_timeout_seconds: 2\n",
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__web"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.MCPConfig = func(c *mcp.Config) { c.Net = netpolicy.Options{Resolver: metadataResolver{}} }
	if _, err := h.Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	var evs []runtime.Event
	deadline := time.Now().Add(3 * time.Second)
	for len(evs) == 0 && time.Now().Before(deadline) {
		// Submitted events are committed within 100 ms.
		time.Sleep(50 * time.Millisecond)
		evs, err = store.Events(runtime.EventQuery{Kind: "mcp.url_decision"})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(evs) == 0 {
		t.Fatal("no mcp.url_decision event")
	}
	data := string(evs[0].Data)
	for _, want := range []string{`"phase":"request"`, `"allowed":false`, `"origin":"http://metadata.test"`, `"server":"web"`} {
		if !strings.Contains(data, want) {
			t.Errorf("event lacks %s: %s", want, data)
		}
	}
	if strings.Contains(data, "qs-secret") || strings.Contains(data, "/mcp") {
		t.Errorf("event shows path or query: %s", data)
	}
}

// TestStrayYmlLeavesTheServerAlone: docs.yml beside docs.yaml is reported
// once, under its file name, and does not restart docs every turn.
func TestStrayYmlLeavesTheServerAlone(t *testing.T) {
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `"mcp.connect:*", "mcp.call:*"`, map[string]string{
		"docs": "command: " + filepath.Join(bins, "echo") + "\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "agent", "mcp", "docs.yml"), []byte("command: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__docs", "allow:docs__pids"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	first := serverPid(t, h.Session())
	if second := serverPid(t, h.Session()); second != first {
		t.Fatalf("docs restarted between turns: %d, then %d", first, second)
	}
	var docs, yml int
	for _, s := range h.MCPStates() {
		switch s.Server {
		case "docs":
			docs++
		case "docs.yml":
			yml++
			if !strings.Contains(s.Diagnostic, "rename it to docs.yaml") {
				t.Errorf("diagnostic %q", s.Diagnostic)
			}
		}
	}
	if docs != 1 || yml != 1 {
		t.Fatalf("%+v", h.MCPStates())
	}
}
