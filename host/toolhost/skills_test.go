package toolhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/skills"
)

// countingApprover answers every prompt with answer and counts them.
type countingApprover struct {
	mu     sync.Mutex
	answer approval.Answer
	asked  []approval.Request
}

func (a *countingApprover) Name() string { return "test" }

func (a *countingApprover) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, r)
	return a.answer, nil
}

func (a *countingApprover) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

const pdfSkill = "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\n---\n# pdf\nStep one.\nStep one.\n"

// skillsCore is a core with slots.skills holding the skill "pdf", opened
// with ap answering prompts.
func skillsCore(t *testing.T, ap approval.Provider, extra string) (*Host, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "agent", "skills")
	if err := os.MkdirAll(filepath.Join(root, "pdf", "references"), 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, content := range map[string]string{"pdf/SKILL.md": pdfSkill, "pdf/references/forms.md": "fields\n"} {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yaml := "toolsets: [coding, demiurge_control]\ncapabilities: [fs.read, fs.write]\nslots:\n  skills: agent/skills\n" + extra
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir, Approver: ap})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, root
}

func callSkill(t *testing.T, h *Host, name string, args any) dispatch.Outcome {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return turn.Call(context.Background(), dispatch.ToolCall{ID: "c1", Name: name, Args: raw})
}

func TestSkillToolsNeedASkillsRoot(t *testing.T) {
	_, cat := resolved(t, "", t.TempDir()) // the embedded core, no user skills directory
	for _, name := range []string{"skills_list", "skill_view", "skill_manage"} {
		if _, ok := cat.Lookup(name); ok {
			t.Errorf("%s is in the catalog of a core without skills", name)
		}
	}
	h, _ := skillsCore(t, nil, "")
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, kind := range map[string]catalog.SubjectKind{"skill_view": catalog.SubjectSkill, "skill_manage": catalog.SubjectSkill} {
		e, ok := cat.Lookup(name)
		if !ok || len(e.Spec.Subjects) != 1 || e.Spec.Subjects[0].Kind != kind {
			t.Errorf("%s: in catalog %v, subjects %+v; want one %s subject", name, ok, e.Spec.Subjects, kind)
		}
	}
	if _, ok := cat.Lookup("skills_list"); !ok {
		t.Error("skills_list is missing")
	}
}

func TestEmbeddedCoreReadsTheUserSkillsDirectory(t *testing.T) {
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "skills", "pdf"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "skills", "pdf", "SKILL.md"), []byte(pdfSkill), 0o600); err != nil {
		t.Fatal(err)
	}
	h, cat := resolved(t, "", state)
	if _, ok := cat.Lookup("skill_view"); !ok {
		t.Fatal("the embedded core with a user skills directory has no skill tools")
	}
	o := callSkill(t, h, "skills_list", map[string]any{})
	if !o.OK() || !strings.Contains(o.Views.Model.String(), "pdf: Fill PDF forms.") {
		t.Fatalf("skills_list: %s %s", o.Status, o.Views.Model.String())
	}
	// A symlink there is refused: it could lead anywhere.
	state2 := t.TempDir()
	if err := os.Symlink(filepath.Join(state, "skills"), filepath.Join(state2, "skills")); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, "", state2); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Fatalf("a symlinked user skills directory: %v", err)
	}
}

func TestSkillReadsThroughThePlugin(t *testing.T) {
	h, _ := skillsCore(t, nil, "")
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		status dispatch.Status
		want   string
	}{
		{"skills_list", map[string]any{}, dispatch.StatusOK, "pdf: Fill PDF forms."},
		{"skill_view", map[string]any{"name": "pdf"}, dispatch.StatusOK, "license: MIT"},
		{"skill_view", map[string]any{"name": "pdf", "file_path": "references/forms.md"}, dispatch.StatusOK, "fields"},
		{"skill_view", map[string]any{"name": "../pdf"}, dispatch.StatusInvalidArguments, "may hold only lowercase"},
		{"skill_view", map[string]any{"name": "pdf/x"}, dispatch.StatusInvalidArguments, "may hold only lowercase"},
		{"skill_view", map[string]any{"name": "pdf", "file_path": "../../agent.yaml"}, dispatch.StatusInvalidArguments, `climbs with ".."`},
		{"skill_view", map[string]any{"name": "pdf", "file_path": "notes.md"}, dispatch.StatusInvalidArguments, "is not under references/"},
		{"skill_view", map[string]any{"name": "nope"}, dispatch.StatusToolError, `there is no skill "nope"`},
	} {
		o := callSkill(t, h, tc.tool, tc.args)
		if o.Status != tc.status || !strings.Contains(o.Views.Model.String(), tc.want) {
			t.Errorf("%s %v: %s %q; want %s with %q", tc.tool, tc.args, o.Status, o.Views.Model.String(), tc.status, tc.want)
		}
	}
}

func TestSkillManageAsksAndRefusesFirst(t *testing.T) {
	ap := &countingApprover{answer: approval.AllowOnce}
	h, root := skillsCore(t, ap, "")
	read := func(rel string) string {
		b, _ := os.ReadFile(filepath.Join(root, rel))
		return string(b)
	}
	steps := []struct {
		name   string
		args   map[string]any
		status dispatch.Status
		asked  bool
		want   string
	}{
		// Refused before anyone is asked: by the host, or by the precheck.
		{"name with a slash", map[string]any{"action": "create", "name": "a/b", "content": "x"}, dispatch.StatusInvalidArguments, false, "may hold only lowercase"},
		{"name dotdot", map[string]any{"action": "delete", "name": ".."}, dispatch.StatusInvalidArguments, false, "may hold only lowercase"},
		{"support file outside the four", map[string]any{"action": "write_file", "name": "pdf", "file_path": "bin/x", "content": "x"}, dispatch.StatusInvalidArguments, false, "is not under references/"},
		{"absolute file", map[string]any{"action": "write_file", "name": "pdf", "file_path": "/etc/x", "content": "x"}, dispatch.StatusInvalidArguments, false, "is absolute"},
		{"hidden segment", map[string]any{"action": "write_file", "name": "pdf", "file_path": "scripts/.hook", "content": "x"}, dispatch.StatusInvalidArguments, false, "hidden segment"},
		{"no front matter", map[string]any{"action": "create", "name": "docx", "content": "# docx"}, dispatch.StatusPrecheckFailed, false, "has no front matter"},
		{"name differs", map[string]any{"action": "create", "name": "docx", "content": strings.Replace(pdfSkill, "pdf", "xlsx", 1)}, dispatch.StatusPrecheckFailed, false, `differs from its directory "docx"`},
		{"patch absent", map[string]any{"action": "patch", "name": "pdf", "old_string": "Step two.", "new_string": "x"}, dispatch.StatusPrecheckFailed, false, "does not occur"},
		{"patch not unique", map[string]any{"action": "patch", "name": "pdf", "old_string": "Step one.", "new_string": "x"}, dispatch.StatusPrecheckFailed, false, "occurs 2 times"},
		{"patch support absent", map[string]any{"action": "patch", "name": "pdf", "file_path": "references/forms.md", "old_string": "nothing", "new_string": "x"}, dispatch.StatusPrecheckFailed, false, ""},
		// Asked, then done.
		{"create", map[string]any{"action": "create", "name": "docx", "content": strings.ReplaceAll(pdfSkill, "pdf", "docx")}, dispatch.StatusOK, true, "created docx/SKILL.md"},
		{"patch", map[string]any{"action": "patch", "name": "pdf", "old_string": "Fill PDF forms.", "new_string": "Fill and sign PDF forms."}, dispatch.StatusOK, true, "patched pdf/SKILL.md"},
		{"write_file", map[string]any{"action": "write_file", "name": "pdf", "file_path": "scripts/fill.py", "content": "print(1)\n"}, dispatch.StatusOK, true, "created pdf/scripts/fill.py"},
		{"remove_file", map[string]any{"action": "remove_file", "name": "pdf", "file_path": "scripts/fill.py"}, dispatch.StatusOK, true, "removed pdf/scripts/fill.py"},
		{"delete", map[string]any{"action": "delete", "name": "docx"}, dispatch.StatusOK, true, "deleted skill docx"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := ap.count()
			o := callSkill(t, h, "skill_manage", st.args)
			if o.Status != st.status || !strings.Contains(o.Views.Model.String(), st.want) {
				t.Fatalf("%s %q; want %s with %q", o.Status, o.Views.Model.String(), st.status, st.want)
			}
			if asked := ap.count() > before; asked != st.asked {
				t.Fatalf("approver asked = %v, want %v", asked, st.asked)
			}
			if st.asked {
				req := ap.asked[len(ap.asked)-1]
				if len(req.Subjects) != 1 || !strings.HasPrefix(req.Subjects[0].Resolved, root+string(filepath.Separator)) || !req.Subjects[0].Protected {
					t.Errorf("the approval names %+v; want the protected real path under %s", req.Subjects, root)
				}
			}
		})
	}
	if !strings.Contains(read("pdf/SKILL.md"), "Fill and sign PDF forms.") {
		t.Error("the approved patch is not in SKILL.md")
	}
	if _, err := os.Stat(filepath.Join(root, "docx")); !os.IsNotExist(err) {
		t.Errorf("docx still there after delete: %v", err)
	}
}

func TestSkillManageDeniedChangesNothing(t *testing.T) {
	h, root := skillsCore(t, approval.DenyAll{}, "")
	o := callSkill(t, h, "skill_manage", map[string]any{"action": "update", "name": "pdf", "content": strings.Replace(pdfSkill, "Fill", "Sign", 1)})
	if o.Status != dispatch.StatusDenied {
		t.Fatalf("%s %s", o.Status, o.Views.Model.String())
	}
	if b, _ := os.ReadFile(filepath.Join(root, "pdf", "SKILL.md")); string(b) != pdfSkill {
		t.Errorf("a denied update changed SKILL.md: %q", b)
	}
}

// A skill directory inside the root that is a symlink out of it is
// blocked before anyone is asked, for reads and writes alike.
func TestSkillSymlinkOutOfTheRootIsBlocked(t *testing.T) {
	ap := &countingApprover{answer: approval.AllowOnce}
	h, root := skillsCore(t, ap, "")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "SKILL.md"), []byte(strings.ReplaceAll(pdfSkill, "pdf", "evil")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "evil")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"skill_view", map[string]any{"name": "evil"}},
		{"skill_manage", map[string]any{"action": "update", "name": "evil", "content": strings.ReplaceAll(pdfSkill, "pdf", "evil")}},
	} {
		o := callSkill(t, h, tc.tool, tc.args)
		if o.Status != dispatch.StatusBlocked && o.Status != dispatch.StatusDenied {
			t.Errorf("%s: %s %q; want blocked", tc.tool, o.Status, o.Views.Model.String())
		}
	}
	if ap.count() != 0 {
		t.Errorf("the approver was asked %d times about a path outside the skills root", ap.count())
	}
}

// The index the turn loop puts into the instructions follows the files:
// a skill created in one turn is in the index built for the next.
func TestIndexFollowsSkillManage(t *testing.T) {
	ap := &countingApprover{answer: approval.AllowOnce}
	h, root := skillsCore(t, ap, "")
	before, err := skills.Index(h.Core.SkillsRoot, 0)
	if err != nil || !strings.Contains(before, "- pdf: Fill PDF forms.") || strings.Contains(before, "docx") {
		t.Fatalf("index before: %v %q", err, before)
	}
	if o := callSkill(t, h, "skill_manage", map[string]any{"action": "create", "name": "docx", "content": strings.ReplaceAll(pdfSkill, "pdf", "docx")}); !o.OK() {
		t.Fatalf("create: %s %s", o.Status, o.Views.Model.String())
	}
	after, err := skills.Index(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(after, "\n"), "- docx: Fill PDF forms.") {
		t.Errorf("index after lacks docx: %q", after)
	}
}
