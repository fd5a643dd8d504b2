package dispatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
)

// TestAPatchCardCountsOverlappingOccurrences: the card's edit counts a
// patch's old_string as the tool does, every offset it starts at, so an
// old_string that occurs twice overlapping shows no edit (the tool refuses
// it as ambiguous) rather than the first of two places.
func TestAPatchCardCountsOverlappingOccurrences(t *testing.T) {
	// The count itself: shared/textedit (TestCountStartsCountsOverlappingOccurrences),
	// the one the patch tool and skill_manage use too.

	// Through a call: the precheck found one place; while the card is up
	// the file gains an overlapping second one. The card shows no edit of
	// the first place, and the tool refuses the edit.
	h := newHarness(t)
	f := filepath.Join(h.ws, "b.txt")
	os.WriteFile(f, []byte("\t}\n}\n"), 0o644)
	p := &saveThenLook{path: f, save: "\t\t}\n\t}\n}\n}\n"}
	turn := h.turn(t, []string{"fs.read", "fs.write"}, p, h.source(t, "coding", codingMeta))
	out := turn.Call(context.Background(), ToolCall{ID: "p", Name: "patch", Args: []byte(`{"path":"b.txt","old_string":"}\n}\n","new_string":"}\n// end\n}\n"}`)})
	if !p.looked || p.edit != nil {
		t.Fatalf("looked %v; the card showed an edit of one of two places: %+v", p.looked, p.edit)
	}
	if b, _ := os.ReadFile(f); out.OK() || string(b) != p.save || !strings.Contains(out.Views.Model.String(), "overlapping") {
		t.Fatalf("%s %q; b.txt = %q", out.Status, out.Views.Model.String(), b)
	}
}

// saveThenLook is an approver before whose look at the card someone saves
// the file; then it allows.
type saveThenLook struct {
	path, save string
	looked     bool
	edit       *approval.FileEdit
}

func (p *saveThenLook) Name() string { return "scripted" }
func (p *saveThenLook) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	if err := os.WriteFile(p.path, []byte(p.save), 0o644); err != nil {
		return approval.Deny, err
	}
	if r.EditFunc != nil {
		p.looked = true
		p.edit = r.EditFunc()
	}
	return approval.AllowOnce, nil
}
