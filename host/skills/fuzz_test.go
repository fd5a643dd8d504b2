package skills

import (
	"strings"
	"testing"
)

// FuzzParseFrontMatter: a SKILL.md may be the model's writing; the index's
// parser never panics and accepts only the directory's name with a
// bounded, non-empty description.
func FuzzParseFrontMatter(f *testing.F) {
	f.Add("pdf", skill("pdf", "Fill forms."))
	f.Add("x", "---\nname: x\ndescription: [1, 2]\n---\n")
	f.Add("x", "---\r\nname: x\r\n")
	f.Fuzz(func(t *testing.T, dir, text string) {
		fm, err := ParseFrontMatter(dir, []byte(text))
		if err != nil {
			return
		}
		if fm.Name != dir || strings.TrimSpace(fm.Description) == "" || len([]rune(fm.Description)) > MaxDescription {
			t.Fatalf("accepted %+v for %q", fm, dir)
		}
	})
}
