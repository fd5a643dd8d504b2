package skills

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func writeSkills(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func skill(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\nlicense: Apache-2.0\n---\n# " + name + "\nThe body is not in the index.\n"
}

func TestIndexOrderAndBrokenSkills(t *testing.T) {
	root := writeSkills(t, map[string]string{
		"zeta/SKILL.md":         skill("zeta", "Last by name."),
		"alpha/SKILL.md":        skill("alpha", "First by name.\n  Second line folded."),
		"mid/SKILL.md":          skill("mid", "In the middle."),
		"nofront/SKILL.md":      "# just markdown",
		"othername/SKILL.md":    skill("different", "Name differs."),
		"nodesc/SKILL.md":       "---\nname: nodesc\n---\n",
		"empty/references/a":    "no SKILL.md",
		"Bad_Name/SKILL.md":     skill("Bad_Name", "d"),
		".hidden/SKILL.md":      skill("hidden", "Hidden directories are not skills."),
		"loose.md":              "a loose file",
		"alpha/references/x.md": "x",
	})
	outside := writeSkills(t, map[string]string{"SKILL.md": skill("linked", "Through a symlink.")})
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	got, err := Index(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, m, z := strings.Index(got, "- alpha: First by name. Second line folded."), strings.Index(got, "- mid: In the middle."), strings.Index(got, "- zeta: Last by name.")
	if a < 0 || m < 0 || z < 0 || !(a < m && m < z) {
		t.Fatalf("index lacks the skills in name order:\n%s", got)
	}
	for _, want := range []string{"Skills: 3 available", "skill_view(name)", "6 skill directories left out as unusable",
		"nofront (SKILL.md has no front matter", "othername (SKILL.md's name \"different\" differs", "nodesc (SKILL.md's front matter has no description"} {
		if !strings.Contains(got, want) {
			t.Errorf("index lacks %q:\n%s", want, got)
		}
	}
	for _, never := range []string{"The body is not in the index", "Hidden directories", "Through a symlink", "loose"} {
		if strings.Contains(got, never) {
			t.Errorf("index holds %q:\n%s", never, got)
		}
	}
}

func TestIndexBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 1000 {
		n := fmt.Sprintf("skill-%04d", i)
		files[n+"/SKILL.md"] = skill(n, strings.Repeat("é", 400)) // two bytes each, clipped at 300 runes
	}
	root := writeSkills(t, files)
	for _, bound := range []int{600, 4096, 64 << 10} {
		got, err := Index(root, bound)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > bound || !utf8.ValidString(got) {
			t.Fatalf("bound %d: %d bytes (valid UTF-8: %v)", bound, len(got), utf8.ValidString(got))
		}
		shown := strings.Count(got, "\n- skill-")
		if !strings.Contains(got, "Skills: 1000 available") || !strings.Contains(got, fmt.Sprintf("(%d more skills not listed here for space", 1000-shown)) {
			t.Errorf("bound %d: header or left-out note wrong (%d shown):\n%.400s", bound, shown, got)
		}
		if shown > 0 && !strings.Contains(got, "- skill-0000: ") {
			t.Errorf("bound %d: the first skill by name is not first", bound)
		}
	}
}

func TestIndexEmptyAndMissing(t *testing.T) {
	if got, err := Index("", 100); got != "" || err != nil {
		t.Errorf("no root: %q, %v", got, err)
	}
	if got, err := Index(t.TempDir(), 100); got != "" || err != nil {
		t.Errorf("empty root: %q, %v", got, err)
	}
	if _, err := Index(filepath.Join(t.TempDir(), "missing"), 100); err == nil {
		t.Error("a missing root gave no error")
	}
}

func TestInstructionsHook(t *testing.T) {
	root := writeSkills(t, map[string]string{"pdf/SKILL.md": skill("pdf", "Fill forms.")})
	hook := Instructions(root, 0)
	got, err := hook(context.Background())
	if err != nil || !strings.Contains(got, "- pdf: Fill forms.") {
		t.Fatalf("%v %q", err, got)
	}
	if err := os.WriteFile(filepath.Join(root, "pdf", "SKILL.md"), []byte(skill("pdf", "Sign forms.")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := hook(context.Background()); !strings.Contains(got, "- pdf: Sign forms.") {
		t.Errorf("the hook did not read the changed skill: %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := hook(ctx); err == nil {
		t.Error("a cancelled context gave no error")
	}
}

// TestASkillsFrontMatterCannotStallTheTurn: the index is built at the
// start of every turn from every SKILL.md under the skills root (a file
// the operator may have copied from anywhere). Its front matter was
// decoded into Go values, which checks each key against all before it: a
// 40 KiB front matter of one repeated key took 6 s, 200 KiB many minutes,
// each turn. Read as a node tree it takes milliseconds; a second name or
// description is refused, not silently one of the two.
func TestASkillsFrontMatterCannotStallTheTurn(t *testing.T) {
	stall := "---\nname: stall\ndescription: Stalls the turn.\n" + strings.Repeat("k: 1\n", 40000) + "---\n"
	if len(stall) > MaxSkillFile {
		t.Fatalf("the fixture is %d bytes, over the %d a SKILL.md may have", len(stall), MaxSkillFile)
	}
	root := writeSkills(t, map[string]string{
		"stall/SKILL.md": stall,
		"twice/SKILL.md": "---\nname: twice\ndescription: What the reader sees.\ndescription: What the model sees.\n---\n",
		"plain/SKILL.md": skill("plain", "An ordinary skill."),
	})
	done := make(chan struct{})
	var index string
	var err error
	go func() {
		defer close(done)
		index, err = Index(root, 0)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the skills index took over 5 s on one 200 KiB front matter")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(index, "- stall: Stalls the turn.") || !strings.Contains(index, "- plain: An ordinary skill.") {
		t.Fatalf("index:\n%s", index)
	}
	if strings.Contains(index, "What the") || !strings.Contains(index, "twice (SKILL.md's front matter gives description twice (line 4)") {
		t.Fatalf("a doubled description was not refused:\n%s", index)
	}
}

// TestASkillWithInvisibleTextIsLeftOut: the index puts every skill's
// description in the model's instructions and skill_view gives the model
// its body; Unicode tag characters there spell text the model reads and a
// terminal shows as nothing (a cat of the file; the approval card escapes
// them), and bidi controls make the operator read other text than the model. A model
// led astray once could so leave instructions for every later session. A
// SKILL.md holding either anywhere is not a usable skill (the index, and
// skills_list and skill_manage, which read it through the same
// skillfile.Validate).
func TestASkillWithInvisibleTextIsLeftOut(t *testing.T) {
	root := writeSkills(t, map[string]string{
		"tagged/SKILL.md":  skill("tagged", "Edit Word files.\U000E0041\U000E006C\U000E0077\U000E0061\U000E0079\U000E0073"),
		"flipped/SKILL.md": "---\nname: flipped\ndescription: Deploys.\n---\n# flipped\nRun `make \u202edeploy`.\n",
		"plain/SKILL.md":   skill("plain", "Codes 👨\u200d💻 things."),
	})
	got, err := Index(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Skills: 1 available", "- plain: Codes", "2 skill directories left out as unusable",
		"tagged (SKILL.md holds U+E0041 on line 3, an invisible character", "flipped (SKILL.md holds U+202E on line 6"} {
		if !strings.Contains(got, want) {
			t.Errorf("index lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsRune(got, 0xE0041) || strings.ContainsRune(got, 0x202E) {
		t.Errorf("the index holds the hidden text:\n%q", got)
	}
}
