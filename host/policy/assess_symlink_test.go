package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// Path assessment follows symlinks: a link out of the workspace makes a
// read ask and a write refused, a link into a credential-like directory
// is sensitive, and retargeting a link changes the fingerprint, so a
// session allow for alias/x does not cover wherever alias points next.
func TestAssessFollowsSymlinks(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	for _, d := range []string{root + "/a", root + "/b", root + "/.ssh", base + "/outside"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(name, target string) {
		_ = os.Remove(filepath.Join(root, name))
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("out", base+"/outside")
	link("keys", ".ssh")
	link("alias", "a")
	w := Workspace{Root: root}
	assess := func(spec catalog.ToolSpec, p string) Assessment {
		t.Helper()
		a, err := Assess(spec, spec.Metadata, map[string]any{"path": p}, w)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := assess(readSpec(), "out/x"); a.Approval != catalog.ApprovalPrompt || !strings.Contains(strings.Join(a.Reasons, ";"), "symlink") {
		t.Errorf("read through a link out of the workspace: %v %q", a.Approval, a.Reasons)
	}
	if a := assess(writeSpec(), "out/x"); a.Approval != catalog.ApprovalDeny {
		t.Errorf("write through a link out of the workspace: %v %q", a.Approval, a.Reasons)
	}
	if a := assess(readSpec(), "keys/id_rsa"); !a.Subjects[0].Sensitive || a.Approval != catalog.ApprovalPrompt {
		t.Errorf("read of .ssh through a link: sensitive %v, %v", a.Subjects[0].Sensitive, a.Approval)
	}
	// A name that is harmless as written (keys/config) and sensitive only
	// where the link leads (.ssh/config): the real path is judged too.
	if a := assess(readSpec(), "keys/config"); !a.Subjects[0].Sensitive || a.Approval != catalog.ApprovalPrompt {
		t.Errorf("read of .ssh/config through a link: sensitive %v, %v", a.Subjects[0].Sensitive, a.Approval)
	}
	// Outside the workspace both paths have no relative form: the real
	// path is judged by where it leads all the same (/base/outside/conf,
	// harmless as written, is /base/outside/.ssh/config).
	if err := os.MkdirAll(base+"/outside/.ssh", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".ssh/config", base+"/outside/conf"); err != nil {
		t.Fatal(err)
	}
	if a := assess(readSpec(), base+"/outside/conf"); !a.Subjects[0].Sensitive || a.Risk != catalog.RiskHigh {
		t.Errorf("read of an outside link to .ssh/config: sensitive %v, risk %v %q", a.Subjects[0].Sensitive, a.Risk, a.Reasons)
	}
	if a := assess(readSpec(), "alias/config"); a.Subjects[0].Sensitive {
		t.Error("a/config through an inside link was judged sensitive")
	}
	if a := assess(readSpec(), "alias/x"); a.Approval != catalog.ApprovalAuto || a.Subjects[0].RealRel != "a/x" {
		t.Errorf("read through an inside link: %v, real %q", a.Approval, a.Subjects[0].RealRel)
	}
	before := assess(writeSpec(), "alias/x").Fingerprint
	link("alias", "b")
	if assess(writeSpec(), "alias/x").Fingerprint == before {
		t.Error("retargeting alias kept the fingerprint of alias/x")
	}
}
