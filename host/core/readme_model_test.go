package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeSection is the text of the README section under heading, up to
// the next heading of any level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// TestReadmeModelExamples loads every yaml example of the README's Models
// section as an agent core.
func TestReadmeModelExamples(t *testing.T) {
	sec := readmeSection(t, "### Models")
	blocks := strings.Split(sec, "```yaml\n")[1:]
	if len(blocks) < 2 {
		t.Fatalf("%d yaml examples in the Models section", len(blocks))
	}
	for i, blk := range blocks {
		yml, _, _ := strings.Cut(blk, "```")
		dir := t.TempDir()
		path := filepath.Join(dir, "agent.yaml")
		if err := os.WriteFile(path, []byte("toolsets: [coding]\n"+yml), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadFile(path)
		if err != nil {
			t.Fatalf("example %d: %v", i+1, err)
		}
		if c.Model == nil || c.Model.Provider == "" || c.Model.Name == "" {
			t.Fatalf("example %d: model %+v", i+1, c.Model)
		}
	}
}
