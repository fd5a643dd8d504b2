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

// TestPathGrantsRunRealSlots: real Python slots under a session holding
// fs.read only; the operator's file grants fs.write to slots/gated and
// slots/writer alone. gated passes its singular gate and writer its
// declared effect capability; the same slot code at another path, and a
// slot that did not declare fs.write, are still refused.
func TestPathGrantsRunRealSlots(t *testing.T) {
	withAuthored(t)
	writer := writerSlot(`"slot-wrote-" + ctx.slot_id`)
	dir := slotCore(t, map[string][2]string{
		"gated":        {"capability: fs.write\n", "def run(ctx, args):\n    return {'context': 'passed the gate'}\n"},
		"gated_other":  {"capability: fs.write\n", "def run(ctx, args):\n    return {'context': 'passed the gate'}\n"},
		"writer":       {"capabilities: [fs.write]\n", writer},
		"writer_other": {"capabilities: [fs.write]\n", writer},
		"undecl":       {"description: requires what it did not declare\n", writer},
	})
	cfg := filepath.Join(t.TempDir(), "demiurge")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	grants := filepath.Join(cfg, "grants.yaml")
	body := "cores:\n  " + dir + ":\n    slots/gated: [fs.write]\n    slots/writer: [fs.write]\n    slots/undecl: [fs.write]\n"
	if err := os.WriteFile(grants, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	slotResults(t, Options{CoreDir: dir, Workspace: ws, StateDir: t.TempDir(), GrantsFile: grants}, map[string]string{
		"gated":        "ok: passed the gate",
		"gated_other":  "error: its capability fs.write is not granted to this session",
		"writer":       "ok: wrote",
		"writer_other": "error: capability fs.write is not granted: fs.write is not granted to this session",
		"undecl":       "error: capability fs.write is not granted: slot undecl did not declare fs.write in its capabilities",
	})
	if _, err := os.Stat(filepath.Join(ws, "slot-wrote-writer")); err != nil {
		t.Error("the granted slot did not write the workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, "slot-wrote-writer_other")); err == nil {
		t.Error("a slot without the grant wrote the workspace")
	}
}
