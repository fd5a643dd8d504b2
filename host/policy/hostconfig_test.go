package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestHostConfigProtected: the host's configuration directory (where the
// operator allows private MCP addresses) is the host's like its state: a
// file tool's write there is refused, as written or through a workspace
// symlink, and the shell guard counts it sensitive.
func TestHostConfigProtected(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root, cfg := filepath.Join(base, "ws"), filepath.Join(base, "config", "demiurge")
	for _, d := range []string{root, cfg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(cfg, filepath.Join(root, "cfg")); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	w.Config = cfg
	file := filepath.Join(cfg, "mcp-private.yaml")
	for _, p := range []string{file, filepath.Join(root, "cfg", "mcp-private.yaml")} {
		a, err := Assess(writeSpec(), writeSpec().Metadata, map[string]any{"path": p}, w)
		if err != nil {
			t.Fatal(err)
		}
		if a.Approval != catalog.ApprovalDeny || !strings.Contains(strings.Join(a.Reasons, ";"), "configuration directory; refused") {
			t.Errorf("write of %s: %v %q", p, a.Approval, a.Reasons)
		}
		if !w.InState(p) || !w.guardSensitive(root)(p) {
			t.Errorf("%s is not the host's to the shell guard", p)
		}
	}
	if w.guardSensitive(root)(filepath.Join(root, "notes.txt")) {
		t.Error("a workspace file counted as the host's")
	}
}

// TestCommandReadingStateThroughALinkAsks: with a state directory and no
// configuration directory (a host without one), a command that reads the
// store through a workspace symlink (st -> STATE) is a credential-like
// read to the shell guard, as written relative to cwd or to the root.
func TestCommandReadingStateThroughALinkAsks(t *testing.T) {
	ws, _ := realWorkspace(t)
	ws.State = filepath.Join(filepath.Dir(ws.Root), "state")
	if err := os.MkdirAll(ws.State+"/packages", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws.State, filepath.Join(ws.Root, "st")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cmd, cwd string }{
		{"cat st/packages/lock.json", ""},
		{"cat ../st/packages/lock.json", "sub"},
		{"cat " + ws.State + "/packages/lock.json", ""},
	} {
		spec := terminalSpec()
		a, err := Assess(spec, spec.Metadata, map[string]any{"command": tc.cmd, "cwd": tc.cwd}, ws)
		if err != nil {
			t.Fatal(err)
		}
		if a.Approval != catalog.ApprovalPrompt || !hasReason(a.Reasons, "credential-like") {
			t.Errorf("%s (cwd %q): %v %q", tc.cmd, tc.cwd, a.Approval, a.Reasons)
		}
	}
	spec := terminalSpec()
	if a, _ := Assess(spec, spec.Metadata, map[string]any{"command": "cat sub/notes.txt"}, ws); a.Approval != catalog.ApprovalAuto {
		t.Errorf("a workspace read asked: %v %q", a.Approval, a.Reasons)
	}
}
