package toolhost

import (
	"os"
	"path/filepath"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
)

// TestPathGrantsReachTheirToolAndSlot: the host gives a grant to the
// authored tool and the slot at the granted path, computing the path
// itself: a tool the runtime reports with a tool.yaml elsewhere, a tool
// of another source with the same name, another slot and a core without
// a directory get nothing.
func TestPathGrantsReachTheirToolAndSlot(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "demiurge")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cfg, "grants.yaml")
	body := "cores:\n  " + dir + ":\n    agent/tools/deploy/**: [tool.call:deploy]\n    slots/review: [fs.read]\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := policy.LoadPathGrants(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &core.Core{Dir: dir, ToolsRoot: filepath.Join(dir, "agent", "tools")}
	h := &Host{Core: c, pathGrants: g.ForCore("", dir)}
	entry := func(kind catalog.SourceKind, name, yaml string) *catalog.Entry {
		return &catalog.Entry{Spec: catalog.ToolSpec{Name: name, Provenance: catalog.Provenance{Kind: kind, Path: yaml}}}
	}
	own := filepath.Join(c.ToolsRoot, "deploy", "tool.yaml")
	if got := h.authoredToolGrants(entry(catalog.SourceAuthored, "deploy", own)); len(got) != 1 || got[0].Capability != "tool.call:deploy" || got[0].Line != 3 {
		t.Errorf("deploy: %v", got)
	}
	for name, e := range map[string]*catalog.Entry{
		"a tool.yaml elsewhere": entry(catalog.SourceAuthored, "deploy", filepath.Join(c.ToolsRoot, "other", "tool.yaml")),
		"a built-in tool":       entry(catalog.SourceBuiltin, "deploy", own),
		"an MCP tool":           entry(catalog.SourceMCP, "deploy", own),
		"a sibling":             entry(catalog.SourceAuthored, "deploy_prod", filepath.Join(c.ToolsRoot, "deploy_prod", "tool.yaml")),
	} {
		if got := h.authoredToolGrants(e); got != nil {
			t.Errorf("%s got %v", name, got)
		}
	}
	if got := h.slotGrants(&core.Slot{Dir: filepath.Join(dir, "slots", "review")}); len(got) != 1 || got[0].Capability != "fs.read" {
		t.Errorf("slot review: %v", got)
	}
	for _, d := range []string{filepath.Join(dir, "slots", "other"), filepath.Join(dir, "slots", "review", ".."), filepath.Join(filepath.Dir(dir), "slots", "review")} {
		if got := h.slotGrants(&core.Slot{Dir: d}); got != nil {
			t.Errorf("slot %s got %v", d, got)
		}
	}
	embedded := &Host{Core: &core.Core{ToolsRoot: c.ToolsRoot}, pathGrants: h.pathGrants}
	if got := embedded.authoredToolGrants(entry(catalog.SourceAuthored, "deploy", own)); got != nil {
		t.Errorf("a core without a directory: %v", got)
	}
}
