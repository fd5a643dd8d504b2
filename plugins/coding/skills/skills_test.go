package skills

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/plugins/coding/fsops"
)

func skillText(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\nlicense: MIT\nmetadata: {author: x}\n---\n# " + name + "\nStep one.\nStep one.\n"
}

// newRoot makes a skills root with the given files (relative path →
// content) and opens it.
func newRoot(t *testing.T, files map[string]string) (*Root, string) {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, r.Path()
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name, dir, text, err string
	}{
		{"valid, other fields kept", "pdf", skillText("pdf", "Fill PDF forms."), ""},
		{"folded description", "pdf", "---\nname: pdf\ndescription: >\n  Fill\n  forms.\n---\n", ""},
		{"CRLF", "pdf", "---\r\nname: pdf\r\ndescription: d\r\n---\r\nbody", ""},
		{"no front matter", "pdf", "# pdf\nno front matter\n", "has no front matter"},
		{"not closed", "pdf", "---\nname: pdf\ndescription: d\n", "is not closed"},
		{"name differs from directory", "pdf", skillText("docx", "d"), `name "docx" differs from its directory "pdf"`},
		{"no description", "pdf", "---\nname: pdf\n---\n", "has no description"},
		{"empty description", "pdf", "---\nname: pdf\ndescription: \"  \"\n---\n", "has no description"},
		{"no name", "pdf", "---\ndescription: d\n---\n", "has no name"},
		{"name not a string", "pdf", "---\nname: [pdf]\ndescription: d\n---\n", "must be a string"},
		{"not a mapping", "pdf", "---\n- a\n---\n", "must be a YAML mapping"},
		{"bad yaml", "pdf", "---\nname: [\n---\n", "not valid YAML"},
		{"long description", "pdf", "---\nname: pdf\ndescription: " + strings.Repeat("x", 1025) + "\n---\n", "at most 1024"},
		{"too big", "pdf", skillText("pdf", "d") + strings.Repeat("x", MaxSkillFile), "at most"},
		// The host's index refuses these too (TestASkillsFrontMatterCannotStallTheTurn).
		{"description twice", "pdf", "---\nname: pdf\ndescription: seen\ndescription: sent\n---\n", "gives description twice (line 4); keep one"},
		{"name twice", "pdf", "---\nname: pdf\nname: pdf\ndescription: d\n---\n", "gives name twice"},
		{"many repeated keys stay fast", "pdf", "---\nname: pdf\ndescription: d\n" + strings.Repeat("k: 1\n", 40000) + "---\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Validate(tc.dir, []byte(tc.text))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

func TestListBoundsAndTotals(t *testing.T) {
	files := map[string]string{}
	for i := range 25 {
		n := fmt.Sprintf("s%02d", i)
		files[n+"/SKILL.md"] = skillText(n, "Skill number "+n+".")
	}
	files["broken/SKILL.md"] = "no front matter"
	files["nofile/references/x.md"] = "x"
	files["Bad_Name/SKILL.md"] = skillText("Bad_Name", "d")
	files["mismatch/SKILL.md"] = skillText("other", "d")
	files["loose.md"] = "not a skill"
	files[".hidden/SKILL.md"] = skillText("hidden", "d")
	r, dir := newRoot(t, files)
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}

	l, err := r.List(0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 25 || len(l.Skills) != 10 || !l.Truncated || l.StoppedBy != "limit" || l.NextOffset != 10 {
		t.Fatalf("page 1: total %d shown %d truncated %v %q next %d", l.Total, len(l.Skills), l.Truncated, l.StoppedBy, l.NextOffset)
	}
	if l.Skills[0].Name != "s00" || l.Skills[9].Name != "s09" || l.Skills[0].Description != "Skill number s00." {
		t.Errorf("order or content: %+v", l.Skills)
	}
	if l.ProblemsTotal != 5 {
		t.Errorf("problems %d %+v, want 5 (broken, nofile, Bad_Name, mismatch, linked)", l.ProblemsTotal, l.Problems)
	}
	last, err := r.List(20, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(last.Skills) != 5 || last.Truncated || last.NextOffset != 0 || last.Skills[4].Name != "s24" {
		t.Errorf("last page: %+v", last)
	}
	if _, err := r.List(-1, 0); err == nil {
		t.Error("a negative offset was accepted")
	}
}

func TestListCharBudget(t *testing.T) {
	files := map[string]string{}
	for i := range 100 {
		n := fmt.Sprintf("s%03d", i)
		files[n+"/SKILL.md"] = skillText(n, strings.Repeat("d", 1000))
	}
	r, _ := newRoot(t, files)
	l, err := r.List(0, 500)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Truncated || l.StoppedBy != "char_budget" || l.Total != 100 || len(l.Skills) >= 100 || l.NextOffset != len(l.Skills) {
		t.Errorf("total %d shown %d truncated %v %q next %d", l.Total, len(l.Skills), l.Truncated, l.StoppedBy, l.NextOffset)
	}
}

func TestView(t *testing.T) {
	r, _ := newRoot(t, map[string]string{
		"pdf/SKILL.md":            skillText("pdf", "Fill forms."),
		"pdf/references/forms.md": "line1\nline2\nline3\n",
		"pdf/notes.md":            "outside the four directories",
	})
	ctx := context.Background()
	res, err := r.View(ctx, ViewParams{Name: "pdf"})
	if err != nil || !strings.Contains(res.Content, "name: pdf") {
		t.Fatalf("SKILL.md: %v %q", err, res.Content)
	}
	res, err = r.View(ctx, ViewParams{Name: "pdf", FilePath: "references/forms.md", Offset: 2, Limit: 1})
	if err != nil || res.Content != "line2\n" || !res.Truncated {
		t.Fatalf("window: %v %+v", err, res)
	}
	for _, bad := range []struct {
		p   ViewParams
		err string
	}{
		{ViewParams{Name: "pdf", FilePath: "notes.md"}, "is not under references/"},
		{ViewParams{Name: "pdf", FilePath: "../pdf/SKILL.md"}, `climbs with ".."`},
		{ViewParams{Name: "../pdf"}, "may hold only lowercase"},
		{ViewParams{Name: "nope"}, `there is no skill "nope"`},
		{ViewParams{Name: "pdf", FilePath: "references/missing.md"}, "no such file"},
	} {
		if _, err := r.View(ctx, bad.p); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("View(%+v) = %v, want %q", bad.p, err, bad.err)
		}
	}
}

func TestViewRefusesSymlinkOut(t *testing.T) {
	r, dir := newRoot(t, map[string]string{"pdf/SKILL.md": skillText("pdf", "d")})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "pdf", "references")); err != nil {
		t.Fatal(err)
	}
	res, err := r.View(context.Background(), ViewParams{Name: "pdf", FilePath: "references/secret.txt"})
	if err == nil || strings.Contains(res.Content, "secret") {
		t.Fatalf("read through a symlink out of the root: %v %q", err, res.Content)
	}
}

func TestChanges(t *testing.T) {
	ctx := context.Background()
	r, dir := newRoot(t, map[string]string{
		"pdf/SKILL.md":            skillText("pdf", "Fill forms."),
		"pdf/references/forms.md": "alpha beta beta\n",
	})
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	steps := []struct {
		name  string
		c     Change
		err   string
		check func(t *testing.T)
	}{
		{"create", Change{Action: "create", Name: "docx", Content: skillText("docx", "Edit documents.")}, "", func(t *testing.T) {
			if !strings.Contains(read("docx/SKILL.md"), "license: MIT") {
				t.Error("SKILL.md not written as given")
			}
		}},
		{"create again", Change{Action: "create", Name: "docx", Content: skillText("docx", "d")}, "exists already", nil},
		{"create without front matter", Change{Action: "create", Name: "new", Content: "# no front matter"}, "has no front matter", nil},
		{"create with another name", Change{Action: "create", Name: "new", Content: skillText("old", "d")}, `differs from its directory "new"`, nil},
		{"create with a slash", Change{Action: "create", Name: "a/b", Content: skillText("a/b", "d")}, "may hold only lowercase", nil},
		{"create dotdot", Change{Action: "create", Name: "..", Content: skillText("..", "d")}, "may hold only lowercase", nil},
		{"update", Change{Action: "update", Name: "docx", Content: skillText("docx", "Edit Word documents.")}, "", func(t *testing.T) {
			if !strings.Contains(read("docx/SKILL.md"), "Edit Word documents.") {
				t.Error("not updated")
			}
		}},
		{"update a missing skill", Change{Action: "update", Name: "nope", Content: skillText("nope", "d")}, `there is no skill "nope"`, nil},
		{"patch SKILL.md", Change{Action: "patch", Name: "pdf", OldString: "Fill forms.", NewString: "Fill PDF forms."}, "", func(t *testing.T) {
			if !strings.Contains(read("pdf/SKILL.md"), "description: Fill PDF forms.") {
				t.Error("not patched")
			}
		}},
		{"patch absent", Change{Action: "patch", Name: "pdf", OldString: "no such text", NewString: "x"}, "does not occur", nil},
		{"patch not unique", Change{Action: "patch", Name: "pdf", OldString: "Step one.", NewString: "x"}, "occurs 2 times", nil},
		{"patch breaking front matter", Change{Action: "patch", Name: "pdf", OldString: "name: pdf", NewString: "name: other"}, "after the patch", nil},
		{"patch support absent", Change{Action: "patch", Name: "pdf", FilePath: "references/forms.md", OldString: "gamma", NewString: "x"}, "", nil},
		{"patch support not unique", Change{Action: "patch", Name: "pdf", FilePath: "references/forms.md", OldString: "beta", NewString: "x"}, "", nil},
		{"patch support", Change{Action: "patch", Name: "pdf", FilePath: "references/forms.md", OldString: "alpha", NewString: "ALPHA"}, "", func(t *testing.T) {
			if read("pdf/references/forms.md") != "ALPHA beta beta\n" {
				t.Errorf("support file %q", read("pdf/references/forms.md"))
			}
		}},
		{"write_file", Change{Action: "write_file", Name: "pdf", FilePath: "scripts/fill/run.py", Content: "print(1)\n"}, "", func(t *testing.T) {
			if read("pdf/scripts/fill/run.py") != "print(1)\n" {
				t.Error("not written")
			}
		}},
		{"write_file outside the four", Change{Action: "write_file", Name: "pdf", FilePath: "other/x", Content: "x"}, "is not under references/", nil},
		{"write_file SKILL.md", Change{Action: "write_file", Name: "pdf", FilePath: "SKILL.md", Content: "x"}, "is not under references/", nil},
		{"write_file hidden", Change{Action: "write_file", Name: "pdf", FilePath: "assets/.x", Content: "x"}, "hidden segment", nil},
		{"write_file absolute", Change{Action: "write_file", Name: "pdf", FilePath: "/tmp/x", Content: "x"}, "is absolute", nil},
		{"write_file to a missing skill", Change{Action: "write_file", Name: "nope", FilePath: "assets/x", Content: "x"}, "there is no skill", nil},
		{"remove_file", Change{Action: "remove_file", Name: "pdf", FilePath: "scripts/fill/run.py"}, "", func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "pdf/scripts/fill/run.py")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("still there: %v", err)
			}
		}},
		{"remove_file missing", Change{Action: "remove_file", Name: "pdf", FilePath: "scripts/none"}, "no such file", nil},
		{"remove_file a directory", Change{Action: "remove_file", Name: "pdf", FilePath: "scripts/fill"}, "is not a regular file", nil},
		{"delete", Change{Action: "delete", Name: "docx"}, "", func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "docx")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("still there: %v", err)
			}
		}},
		{"delete missing", Change{Action: "delete", Name: "docx"}, "there is no skill", nil},
		{"unknown action", Change{Action: "rename", Name: "pdf"}, "unknown action", nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := read("pdf/references/forms.md") + read("pdf/SKILL.md")
			checkErr := r.Check(ctx, st.c)
			_, err := r.Apply(ctx, st.c)
			switch {
			case st.err == "" && st.check == nil:
				// refusals fsops words: any refusal
				var re *fsops.RefusedError
				if !errors.As(checkErr, &re) || !errors.As(err, &re) {
					t.Fatalf("check %v apply %v; want refusals", checkErr, err)
				}
			case st.err != "":
				if checkErr == nil || !strings.Contains(checkErr.Error(), st.err) || err == nil {
					t.Fatalf("check %v apply %v; want %q", checkErr, err, st.err)
				}
			default:
				if checkErr != nil || err != nil {
					t.Fatalf("check %v apply %v", checkErr, err)
				}
				st.check(t)
				return
			}
			if after := read("pdf/references/forms.md") + read("pdf/SKILL.md"); after != before {
				t.Error("a refused change changed the files")
			}
		})
	}
}

func TestNoRoot(t *testing.T) {
	if _, err := Open(""); !errors.Is(err, ErrNoRoot) {
		t.Errorf("Open(\"\") = %v", err)
	}
}

// TestASkillPatchIsAmbiguousWhereItsTextOverlapsItself: skill_manage's
// patch of SKILL.md decides uniqueness as patch does, by every offset the
// old text starts at, so "}\n}\n" in "}\n}\n}\n" is two places, refused.
func TestASkillPatchIsAmbiguousWhereItsTextOverlapsItself(t *testing.T) {
	r, dir := newRoot(t, map[string]string{"pdf/SKILL.md": skillText("pdf", "Fill forms.") + "}\n}\n}\n"})
	c := Change{Action: "patch", Name: "pdf", OldString: "}\n}\n", NewString: "}\nend\n}\n"}
	checkErr := r.Check(context.Background(), c)
	_, err := r.Apply(context.Background(), c)
	if checkErr == nil || err == nil || !strings.Contains(err.Error(), "occurs 2 times (some overlapping)") {
		t.Fatalf("check %v apply %v", checkErr, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pdf/SKILL.md")); string(b) != skillText("pdf", "Fill forms.")+"}\n}\n}\n" {
		t.Fatalf("SKILL.md changed: %q", b)
	}
}

// TestASkillPatchLosesNoSaveMadeBeforeItsWrite: a patch of SKILL.md is
// computed from one read and written whole; a save made between the two
// was replaced. The write is bound to the read: nothing is written, the
// save is kept.
func TestASkillPatchLosesNoSaveMadeBeforeItsWrite(t *testing.T) {
	r, dir := newRoot(t, map[string]string{"pdf/SKILL.md": skillText("pdf", "Fill forms.")})
	f := filepath.Join(dir, "pdf/SKILL.md")
	saved := skillText("pdf", "Fill forms.") + "The user's new step.\n"
	testHookBeforeWrite = func() { os.WriteFile(f, []byte(saved), 0o644) }
	defer func() { testHookBeforeWrite = nil }()
	_, err := r.Apply(context.Background(), Change{Action: "patch", Name: "pdf", OldString: "Fill forms.", NewString: "Fill PDF forms."})
	if b, _ := os.ReadFile(f); err == nil || string(b) != saved {
		t.Fatalf("apply %v; SKILL.md = %q, want the save kept", err, b)
	}
}

// TestASkillCreateKeepsASKILLmdMadeBeforeItsWrite: create checked that no
// SKILL.md exists, then wrote one; a SKILL.md made in between was
// replaced. The write must create the file or write nothing.
func TestASkillCreateKeepsASKILLmdMadeBeforeItsWrite(t *testing.T) {
	r, dir := newRoot(t, map[string]string{"pdf/SKILL.md": skillText("pdf", "Fill forms.")})
	f := filepath.Join(dir, "docx/SKILL.md")
	saved := skillText("docx", "Someone else's.")
	testHookBeforeWrite = func() {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte(saved), 0o644)
	}
	defer func() { testHookBeforeWrite = nil }()
	_, err := r.Apply(context.Background(), Change{Action: "create", Name: "docx", Content: skillText("docx", "Mine.")})
	if b, _ := os.ReadFile(f); err == nil || string(b) != saved {
		t.Fatalf("apply %v; SKILL.md = %q, want the other kept", err, b)
	}
}

// TestASkillThatHidesTextIsRefusedBeforeApproval: skill_manage's check
// (run before anyone is asked) refuses a SKILL.md whose description or
// body holds Unicode tag characters or a bidi control, as the index leaves
// such a skill out: a model led astray once would otherwise leave every
// later session instructions only the model sees, in a file that reads
// "Edit Word files." when the operator opens it.
func TestASkillThatHidesTextIsRefusedBeforeApproval(t *testing.T) {
	r, dir := newRoot(t, map[string]string{"pdf/SKILL.md": skillText("pdf", "Fill forms.")})
	for _, c := range []Change{
		{Action: "create", Name: "docx", Content: skillText("docx", "Edit Word files.\U000E0041\U000E006C")},
		{Action: "patch", Name: "pdf", OldString: "Fill forms.", NewString: "Fill forms \u202eterces."},
	} {
		err := r.Check(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), "an invisible character") {
			t.Errorf("%s: %v", c.Action, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "docx")); !os.IsNotExist(err) {
		t.Errorf("docx made: %v", err)
	}
}
