package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bootstrap snapshot is made on a session's first use and stored with
// it: a later AGENTS.md edit reaches a new session, not the old one.
func TestBootstrapSnapshotIsStoredWithTheSession(t *testing.T) {
	ws := t.TempDir()
	agents := filepath.Join(ws, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("first rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{StateDir: t.TempDir(), Workspace: ws, BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	hook := h.BootstrapInstruction()
	ctx := context.Background()
	text, err := hook(ctx)
	if err != nil || !strings.Contains(text, "first rules") {
		t.Fatalf("first turn: %q %v", text, err)
	}
	old := h.Session()
	if err := os.WriteFile(agents, []byte("second rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, _ := hook(ctx); !strings.Contains(text, "first rules") {
		t.Fatalf("the session's snapshot changed under it: %q", text)
	}
	snap, err := h.BootstrapSnapshot(ctx, old)
	if err != nil || snap.CoreRevision != h.Core.Revision || snap.Parts[0].Slot != "project_instructions" {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
	h.NewSession()
	if text, _ := hook(ctx); !strings.Contains(text, "second rules") {
		t.Fatalf("a new session got the old snapshot: %q", text)
	}
}
