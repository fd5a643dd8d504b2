package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkIndex1000 builds the skills index (8 KiB default bound) over
// 1,000 skills, as a turn does once.
func BenchmarkIndex1000(b *testing.B) {
	root := b.TempDir()
	for i := range 1000 {
		name := fmt.Sprintf("skill-%04d", i)
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			b.Fatal(err)
		}
		body := "---\nname: " + name + "\ndescription: " + strings.Repeat("Does one kind of task well. ", 5) + "\n---\n" + strings.Repeat("Step.\n", 100)
		if err := os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		out, err := Index(root, 0)
		if err != nil || !strings.Contains(out, "Skills: 1000 available") {
			b.Fatalf("%v %.100q", err, out)
		}
	}
}
