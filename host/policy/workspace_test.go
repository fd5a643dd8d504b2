package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNewWorkspace(t *testing.T) {
	ws, err := NewWorkspace("/ws/sub/../proj/")
	if err != nil || ws.Root != "/ws/proj" {
		t.Fatalf("NewWorkspace = %+v, %v; want /ws/proj", ws, err)
	}
	for _, bad := range []string{"", "rel/dir", "./x", "/ws\x00"} {
		if _, err := NewWorkspace(bad); err == nil {
			t.Errorf("NewWorkspace(%q) accepted", bad)
		}
	}
}

func TestResolve(t *testing.T) {
	ws := Workspace{Root: "/ws"}
	for _, tc := range []struct {
		in     string
		abs    string
		inside bool
		rel    string
	}{
		{"a.txt", "/ws/a.txt", true, "a.txt"},
		{"./dir/../b.txt", "/ws/b.txt", true, "b.txt"},
		{".", "/ws", true, "."},
		{"/ws", "/ws", true, "."},
		{"/ws/", "/ws", true, "."},
		{"/ws//x/./y", "/ws/x/y", true, "x/y"},
		{"..", "/", false, ""},
		{"../ws-other/x", "/ws-other/x", false, ""},
		{"/ws-other", "/ws-other", false, ""},
		{"/ws/../etc/passwd", "/etc/passwd", false, ""},
		{"a/../../etc", "/etc", false, ""},
		{"/etc/hosts", "/etc/hosts", false, ""},
		{"~/.ssh/id_rsa", "/ws/~/.ssh/id_rsa", true, "~/.ssh/id_rsa"},
	} {
		got, err := ws.Resolve(tc.in)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tc.in, err)
			continue
		}
		if got.Abs != tc.abs || got.Inside != tc.inside || got.Rel != tc.rel {
			t.Errorf("Resolve(%q) = %+v, want {%s %v %s}", tc.in, got, tc.abs, tc.inside, tc.rel)
		}
	}
	for _, bad := range []string{"", "a\x00b"} {
		if _, err := ws.Resolve(bad); err == nil {
			t.Errorf("Resolve(%q) accepted", bad)
		}
	}
	if _, err := (Workspace{Root: "relative"}).Resolve("a"); err == nil {
		t.Error("a relative root was accepted")
	}
	// NewWorkspace's validation is remembered for its root only: a root
	// changed afterwards is checked again.
	made, err := NewWorkspace("/ws")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"relative", "/ws/../x", "/ws/", "/ws\x00", ""} {
		changed := made
		changed.Root = bad
		if _, err := changed.Resolve("a"); err == nil {
			t.Errorf("a workspace made valid, its root changed to %q, was accepted", bad)
		}
	}
	root, err := (Workspace{Root: "/"}).Resolve("/etc/x")
	if err != nil || !root.Inside || root.Rel != "etc/x" {
		t.Errorf("root workspace: %+v, %v", root, err)
	}
}

// FuzzAssessPath checks that no path string is ever called inside the
// workspace when its cleaned form lies outside, and that nothing panics.
func FuzzAssessPath(f *testing.F) {
	for _, s := range []string{
		"a.txt", "../x", "/ws-other", "/ws/../ws-other", "/ws", "/ws/", "..", "/", "",
		"a/../../b", "//ws//a", "/ws/.ssh/id_rsa", ".env", "a\x00b", "\\..\\x", "~",
		"/ws/a/../../ws", strings.Repeat("../", 50) + "etc",
	} {
		f.Add("/ws", s)
	}
	f.Add("/", "../etc")
	f.Add("/ws/deep/root", "../root2/x")
	f.Fuzz(func(t *testing.T, root, p string) {
		ws, err := NewWorkspace(root)
		if err != nil {
			return
		}
		spec := readSpec()
		got, err := Assess(spec, spec.Metadata, map[string]any{"path": p}, ws)
		if err != nil {
			return
		}
		fact := got.Subjects[0]
		if !filepath.IsAbs(fact.Resolved) || filepath.Clean(fact.Resolved) != fact.Resolved {
			t.Fatalf("resolved %q is not absolute and clean", fact.Resolved)
		}
		// An independent oracle: filepath.Rel climbs out with "..".
		rel, err := filepath.Rel(ws.Root, fact.Resolved)
		outside := err != nil || rel == ".." || strings.HasPrefix(rel, "../")
		if fact.Inside == outside {
			t.Fatalf("root %q path %q: Inside=%v but Rel=%q", ws.Root, p, fact.Inside, rel)
		}
		if !fact.Inside && got.Approval == 0 {
			t.Fatalf("outside read %q was left auto", fact.Resolved)
		}
		if fact.Sensitive && got.Approval == 0 {
			t.Fatalf("sensitive read %q was left auto", fact.Resolved)
		}
	})
}
