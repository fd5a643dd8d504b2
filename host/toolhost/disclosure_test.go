package toolhost

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
)

func definitionNames(t *testing.T, cat *catalog.Catalog) []string {
	t.Helper()
	defs, err := cat.Definitions(catalog.ProviderAnthropic)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range defs {
		out = append(out, d["name"].(string))
	}
	return out
}

func turnCall(t *testing.T, turn *dispatch.Turn, name string, args any) dispatch.Outcome {
	t.Helper()
	raw, _ := json.Marshal(args)
	return turn.Call(context.Background(), dispatch.ToolCall{ID: "c", Name: name, Args: raw})
}

func TestNoDeferralNoSearch(t *testing.T) {
	_, cat := resolved(t, "", t.TempDir())
	if _, ok := cat.Lookup(catalog.SearchCapabilitiesTool); ok {
		t.Error("search_capabilities is in a catalog that defers nothing")
	}
}

func TestDeferredToolsActivateForTheSession(t *testing.T) {
	dir := writeCore(t, "toolsets: [coding, demiurge_control]\ncapabilities: [fs.read, fs.write, network.fetch]\ntools:\n  deferred: [web_extract, terminal, no_such_tool]\n")
	state := t.TempDir()
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	turn, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defs := definitionNames(t, turn.Catalog)
	if slices.Contains(defs, "web_extract") || slices.Contains(defs, "terminal") || !slices.Contains(defs, "search_capabilities") || !slices.Contains(defs, "read_file") {
		t.Fatalf("definitions %q: want web_extract and terminal deferred, search_capabilities and read_file shown", defs)
	}
	if !slices.ContainsFunc(turn.Catalog.Diagnostics(), func(d catalog.Diagnostic) bool { return strings.Contains(d.Message, "no_such_tool") }) {
		t.Error("a tools.deferred name matching nothing is not a diagnostic")
	}
	// tools_list shows the deferred ones, marked.
	if o := turnCall(t, turn, "tools_list", map[string]any{"mode": "quiet"}); !o.OK() || !strings.Contains(o.Views.Model.String(), "web_extract (deferred)") {
		t.Fatalf("tools_list: %s %q", o.Status, o.Views.Model.String())
	}
	// A hidden tool cannot be called.
	if o := turnCall(t, turn, "web_extract", map[string]any{"url": "https://example.org/"}); o.Status != dispatch.StatusUnknownTool || !strings.Contains(o.Views.Model.String(), "search_capabilities") {
		t.Fatalf("calling a deferred tool: %s %q", o.Status, o.Views.Model.String())
	}
	// A search that matches nothing activates nothing.
	if o := turnCall(t, turn, "search_capabilities", map[string]any{"query": "kubernetes pods"}); !o.OK() || !strings.Contains(o.Views.Model.String(), "No deferred tool matches") {
		t.Fatalf("empty search: %s %q", o.Status, o.Views.Model.String())
	}
	if slices.Contains(definitionNames(t, turn.Catalog), "web_extract") {
		t.Fatal("a search that matched nothing showed a tool")
	}
	// A matching search activates, in this turn's catalog too.
	o := turnCall(t, turn, "search_capabilities", map[string]any{"query": "web_extract"})
	if !o.OK() || !strings.Contains(o.Views.Model.String(), "Activated for the rest of this session") || !strings.Contains(o.Views.Model.String(), "web_extract") {
		t.Fatalf("search: %s %q", o.Status, o.Views.Model.String())
	}
	if defs := definitionNames(t, turn.Catalog); !slices.Contains(defs, "web_extract") || slices.Contains(defs, "terminal") {
		t.Fatalf("after activation the definitions are %q", defs)
	}
	next, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(definitionNames(t, next.Catalog), "web_extract") || next.Catalog.DisclosureState("web_extract") != "active" {
		t.Fatal("the activation did not last into the next turn")
	}
	if o := turnCall(t, next, "tools_list", map[string]any{"mode": "quiet"}); !strings.Contains(o.Views.Model.String(), "web_extract (active)") {
		t.Errorf("tools_list after activation: %q", o.Views.Model.String())
	}

	// A delegated child that was not given web_extract cannot provide it.
	child, err := h.Session().Delegate(ctx, Delegation{Tools: []string{"read_file", "search_capabilities"}})
	if err != nil {
		t.Fatal(err)
	}
	ct, err := child.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o = turnCall(t, ct, "search_capabilities", map[string]any{"query": "terminal"})
	if !o.OK() || !strings.Contains(o.Views.Model.String(), "unavailable_tools (matched, but this session cannot provide them):\n  terminal:") || strings.Contains(o.Views.Model.String(), "Activated") {
		t.Fatalf("child search: %s %q; want terminal under unavailable_tools and nothing activated", o.Status, o.Views.Model.String())
	}
	if ct.Catalog.Disclosure().IsActive("terminal") || h.Session().disclosureNames()[0] != "web_extract" || len(h.Session().disclosureNames()) != 1 {
		t.Error("an unavailable match was activated")
	}
	child.End()

	// Resumed in a new host process on the same state: still active.
	id := h.Session().ID()
	h.Close()
	h2, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if _, err := h2.ResumeSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	cat, err := h2.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if defs := definitionNames(t, cat); !slices.Contains(defs, "web_extract") || slices.Contains(defs, "terminal") {
		t.Fatalf("resumed definitions %q: want web_extract active, terminal still deferred", defs)
	}
	// A fresh session starts with nothing active.
	h2.NewSession()
	cat, err = h2.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(definitionNames(t, cat), "web_extract") {
		t.Fatal("another session inherited the activation")
	}
}

// An MCP manifest's deferred: true hides that server's tools only.
func TestMCPManifestDeferred(t *testing.T) {
	bins := mcptest.Servers(t)
	dir := mcpCore(t, `fs.read, "mcp.connect:*", "mcp.call:*"`, map[string]string{
		"docs": "command: " + filepath.Join(bins, "echo") + "\ndeferred: true\n",
	})
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir,
		Rules: []string{"allow:mcp_connect__docs"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup("docs__echo"); !ok {
		t.Fatalf("docs__echo missing; warnings %q", h.Warnings())
	}
	if !cat.Hidden("docs__echo") || slices.Contains(definitionNames(t, cat), "docs__echo") {
		t.Error("a deferred server's tool is in the definitions")
	}
	if !slices.Contains(definitionNames(t, cat), "read_file") {
		t.Error("deferring a server hid a built-in tool")
	}
}
