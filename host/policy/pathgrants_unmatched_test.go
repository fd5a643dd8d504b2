package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPathGrantsUnmatched: a rule that matches none of the core's tool
// and slot paths is reported with its file, line and pattern; a rule that
// matches one is not, nor is another core's.
func TestPathGrantsUnmatched(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "grants.yaml")
	body := "cores:\n  mycore:\n    tools/deploy/**: [fs.read]\n    tools/Deploy: [fs.read]\n    slots/review: [fs.read]\n    slots/*: [fs.read]\n  other:\n    tools/nothing: [fs.read]\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := LoadPathGrants(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := g.ForCore("mycore", "").Unmatched([]string{"tools/deploy", "tools/note", "slots/lint", "", "tools/../slots/review"})
	if len(got) != 2 || got[0].Pattern != "tools/Deploy" || got[0].Line != 4 || got[1].Pattern != "slots/review" || got[1].Line != 5 || got[0].File != file {
		t.Fatalf("unmatched: %+v", got)
	}
	if got := g.ForCore("mycore", "").Unmatched([]string{"tools/deploy", "tools/Deploy", "slots/review"}); len(got) != 0 {
		t.Fatalf("every rule matches, yet: %+v", got)
	}
}
