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
