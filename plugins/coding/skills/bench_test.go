package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// thousandSkills is a skills root of 1,000 skills, each a SKILL.md of
// about 1 KiB with a 150-character description, and a references file.
func thousandSkills(b *testing.B) string {
	root := b.TempDir()
	for i := range 1000 {
		name := fmt.Sprintf("skill-%04d", i)
		dir := filepath.Join(root, name, "references")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		body := "---\nname: " + name + "\ndescription: " + strings.Repeat("Does one kind of task well. ", 5) + "\nlicense: MIT\n---\n" + strings.Repeat("Step of the procedure.\n", 35)
		if err := os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("notes\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkList1000 is one skills_list page (the default 100) over 1,000
// skills: every SKILL.md's front matter is read for the exact total.
func BenchmarkList1000(b *testing.B) {
	root := thousandSkills(b)
	for b.Loop() {
		r, err := Open(root)
		if err != nil {
			b.Fatal(err)
		}
		l, err := r.List(0, 0)
		if err != nil || l.Total != 1000 || len(l.Skills) != 100 {
			b.Fatalf("%v total %d shown %d", err, l.Total, len(l.Skills))
		}
		r.Close()
	}
}
