package skills

import (
	"strings"
	"testing"
)

// FuzzValidate: SKILL.md is written by the model; the parser never
// panics, and what it accepts has the directory's name and a bounded,
// non-empty description.
func FuzzValidate(f *testing.F) {
	f.Add("pdf", skillText("pdf", "Fill forms."))
	f.Add("pdf", "---\nname: pdf\ndescription: >\n  a\n---\n")
	f.Add("x", "---\n---\n")
	f.Add("x", "---\nname: &a x\ndescription: *a\n---\n")
	f.Fuzz(func(t *testing.T, dir, text string) {
		fm, err := Validate(dir, []byte(text))
		if err != nil {
			return
		}
		if fm.Name != dir || strings.TrimSpace(fm.Description) == "" || len([]rune(fm.Description)) > MaxDescription {
			t.Fatalf("accepted %+v for %q", fm, dir)
		}
	})
}
