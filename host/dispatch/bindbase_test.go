package dispatch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
)

func writeCall(t *testing.T, real string, args map[string]any) *prepared {
	t.Helper()
	raw, _ := json.Marshal(args)
	return &prepared{
		entry:   &catalog.Entry{Spec: catalog.ToolSpec{Name: "write_file", ApprovalPreview: catalog.PreviewFileWrite, Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin}}},
		args:    args,
		argsRaw: raw,
		assess: &policy.Assessment{Subjects: []policy.SubjectFact{{
			Kind: "path", Access: catalog.AccessWrite, Inside: true, RealInside: true, Real: real, RealRel: filepath.Base(real),
		}}},
	}
}

func sha(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// TestAWriteIsBoundToTheContentTheCardShowed: the plugin gets, as
// expected_sha256, the content read for the card's diff (or "absent"),
// read once however often the card and the edit ask; a model's own
// expectation naming other content than the card showed is refused
// before the plugin runs (even where the file now matches the model's).
func TestAWriteIsBoundToTheContentTheCardShowed(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.txt")
	os.WriteFile(f, []byte("shown\n"), 0o644)

	p := writeCall(t, f, map[string]any{"path": "a.txt", "content": "model\n"})
	if prev, ok := p.diffPreview(nil); !ok || !strings.Contains(prev, "-shown") {
		t.Fatalf("preview %q", prev)
	}
	os.WriteFile(f, []byte("saved meanwhile\n"), 0o644)
	inv := Invocation{Args: p.argsRaw}
	if err := p.bindWriteToBase(&inv); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(inv.Args, &got); err != nil || got["expected_sha256"] != sha("shown\n") || got["content"] != "model\n" {
		t.Fatalf("bound args %s (%v), want the card's content's sha256", inv.Args, err)
	}

	// A new file is bound as absent.
	p = writeCall(t, filepath.Join(dir, "new.txt"), map[string]any{"path": "new.txt", "content": "x"})
	inv = Invocation{Args: p.argsRaw}
	if err := p.bindWriteToBase(&inv); err != nil || !strings.Contains(string(inv.Args), `"expected_sha256":"absent"`) {
		t.Fatalf("new file: %s %v", inv.Args, err)
	}

	// The model expects what was saved after the card: refused here.
	os.WriteFile(f, []byte("shown\n"), 0o644)
	p = writeCall(t, f, map[string]any{"path": "a.txt", "content": "model\n", "expected_sha256": sha("saved meanwhile\n")})
	p.diffPreview(nil)
	os.WriteFile(f, []byte("saved meanwhile\n"), 0o644)
	inv = Invocation{Args: p.argsRaw}
	if err := p.bindWriteToBase(&inv); err == nil {
		t.Fatal("a model's expectation other than the content shown was passed on")
	}
	// The same expectation as shown: passed on unchanged.
	p = writeCall(t, f, map[string]any{"path": "a.txt", "content": "model\n", "expected_sha256": sha("saved meanwhile\n")})
	inv = Invocation{Args: p.argsRaw}
	if err := p.bindWriteToBase(&inv); err != nil || string(inv.Args) != string(p.argsRaw) {
		t.Fatalf("matching expectation: %s %v", inv.Args, err)
	}
}
