package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

func skillManageSpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name:     "skill_manage",
		Effect:   catalog.EffectWrite,
		Metadata: catalog.Metadata{Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectSkill, Arg: "name", PathArg: "file_path", ActionArg: "action"}},
	}
}

func skillViewSpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name:     "skill_view",
		Effect:   catalog.EffectRead,
		Metadata: catalog.Metadata{Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectSkill, Arg: "name", PathArg: "file_path"}},
	}
}

// skillWorkspace is a workspace holding a core whose skills root has one
// skill, "real", and the skill "escape" a symlink to a directory outside.
func skillWorkspace(t *testing.T) (Workspace, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "core", "skills")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(root, "real", "references"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "real", "assets")); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.SkillsRoot = root
	return w, root
}

func TestAssessSkill(t *testing.T) {
	w, root := skillWorkspace(t)
	tests := []struct {
		name     string
		spec     catalog.ToolSpec
		args     map[string]any
		err      string
		approval catalog.ApprovalPolicy
		block    bool
		path     string // Resolved, relative to root
		reason   string
	}{
		{"view SKILL.md", skillViewSpec(), map[string]any{"name": "real"}, "", catalog.ApprovalAuto, false, "real/SKILL.md", ""},
		{"view a reference", skillViewSpec(), map[string]any{"name": "real", "file_path": "references/a.md"}, "", catalog.ApprovalAuto, false, "real/references/a.md", ""},
		{"create asks the operator", skillManageSpec(), map[string]any{"action": "create", "name": "new-skill"}, "", catalog.ApprovalPrompt, false, "new-skill/SKILL.md", "writes skill file new-skill/SKILL.md"},
		{"delete names the directory", skillManageSpec(), map[string]any{"action": "delete", "name": "real"}, "", catalog.ApprovalPrompt, false, "real", "deletes skill real"},
		{"write_file", skillManageSpec(), map[string]any{"action": "write_file", "name": "real", "file_path": "scripts/x.sh"}, "", catalog.ApprovalPrompt, false, "real/scripts/x.sh", "writes skill file real/scripts/x.sh"},
		// Refused before approval.
		{"name with a slash", skillManageSpec(), map[string]any{"action": "create", "name": "a/b"}, "may hold only lowercase", 0, false, "", ""},
		{"name dotdot", skillViewSpec(), map[string]any{"name": ".."}, "may hold only lowercase", 0, false, "", ""},
		{"absolute file", skillViewSpec(), map[string]any{"name": "real", "file_path": "/etc/passwd"}, "is absolute", 0, false, "", ""},
		{"file outside the four directories", skillManageSpec(), map[string]any{"action": "write_file", "name": "real", "file_path": "notes/x.md"}, "is not under references/", 0, false, "", ""},
		{"hidden segment", skillManageSpec(), map[string]any{"action": "write_file", "name": "real", "file_path": "references/.x"}, "hidden segment", 0, false, "", ""},
		{"file_path not a string", skillViewSpec(), map[string]any{"name": "real", "file_path": 3.0}, "must be a string", 0, false, "", ""},
		// A symlink inside the root that leads out is blocked.
		{"skill directory is a symlink out", skillManageSpec(), map[string]any{"action": "create", "name": "escape"}, "", catalog.ApprovalDeny, true, "escape/SKILL.md", "outside the skills root"},
		{"support directory is a symlink out", skillViewSpec(), map[string]any{"name": "real", "file_path": "assets/secret.txt"}, "", catalog.ApprovalDeny, true, "real/assets/secret.txt", "outside the skills root"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Assess(tc.spec, tc.spec.Metadata, tc.args, w)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Approval != tc.approval || a.Block != tc.block {
				t.Errorf("approval %v block %v, want %v %v (reasons %q)", a.Approval, a.Block, tc.approval, tc.block, a.Reasons)
			}
			f := a.Subjects[0]
			if want := filepath.Join(root, tc.path); f.Resolved != want || f.Kind != "path" {
				t.Errorf("fact %s %q, want path %q", f.Kind, f.Resolved, want)
			}
			if f.Protected != (tc.spec.Name == "skill_manage") {
				t.Errorf("Protected = %v", f.Protected)
			}
			if tc.reason != "" && !strings.Contains(strings.Join(a.Reasons, "; "), tc.reason) {
				t.Errorf("reasons %q lack %q", a.Reasons, tc.reason)
			}
			if a.ReadOnly != (tc.spec.Name == "skill_view") {
				t.Errorf("ReadOnly = %v", a.ReadOnly)
			}
		})
	}
}

func TestAssessSkillWithoutRoot(t *testing.T) {
	w, _ := skillWorkspace(t)
	w.SkillsRoot = ""
	if _, err := Assess(skillViewSpec(), skillViewSpec().Metadata, map[string]any{"name": "real"}, w); err == nil || !strings.Contains(err.Error(), "no skills root") {
		t.Fatalf("err %v, want no skills root", err)
	}
}
