package skillpath

import (
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		action, name, file string
		want               Target
		err                string
	}{
		{"", "pdf-tools", "", Target{Rel: "pdf-tools/SKILL.md"}, ""},
		{"", "pdf-tools", "references/forms.md", Target{Rel: "pdf-tools/references/forms.md"}, ""},
		{"create", "pdf-tools", "", Target{Rel: "pdf-tools/SKILL.md", Write: true}, ""},
		{"update", "a1", "", Target{Rel: "a1/SKILL.md", Write: true}, ""},
		{"patch", "a1", "", Target{Rel: "a1/SKILL.md", Write: true}, ""},
		{"patch", "a1", "scripts/run.py", Target{Rel: "a1/scripts/run.py", Write: true}, ""},
		{"write_file", "a1", "assets/x/y.png", Target{Rel: "a1/assets/x/y.png", Write: true}, ""},
		{"remove_file", "a1", "templates/t.txt", Target{Rel: "a1/templates/t.txt", Write: true}, ""},
		{"delete", "a1", "", Target{Rel: "a1", Write: true, Dir: true}, ""},
		// Names.
		{"", "a/b", "", Target{}, "may hold only lowercase"},
		{"", "..", "", Target{}, "may hold only lowercase"},
		{"create", "../x", "", Target{}, "may hold only lowercase"},
		{"", ".hidden", "", Target{}, "may hold only lowercase"},
		{"", "", "", Target{}, "is empty"},
		{"", "Upper", "", Target{}, "lowercase"},
		{"", "-a", "", Target{}, "must not start or end"},
		{"", "a--b", "", Target{}, "must not start or end"},
		{"", strings.Repeat("a", 65), "", Target{}, "at most 64"},
		// Support files.
		{"", "a", "/etc/passwd", Target{}, "is absolute"},
		{"", "a", "references/../../x", Target{}, `climbs with ".."`},
		{"", "a", "../b/SKILL.md", Target{}, `climbs with ".."`},
		{"write_file", "a", "references/.env", Target{}, "hidden segment"},
		{"write_file", "a", ".git/config", Target{}, "hidden segment"},
		{"write_file", "a", "SKILL.md", Target{}, "is not under references/"},
		{"write_file", "a", "notes/x.md", Target{}, "is not under references/"},
		{"write_file", "a", "references", Target{}, "names the directory itself"},
		{"write_file", "a", "references//x", Target{}, "empty segment"},
		{"write_file", "a", "references/./x", Target{}, `"." segment`},
		{"write_file", "a", `references\x`, Target{}, "backslash"},
		{"write_file", "a", "references/x\x00", Target{}, "control character"},
		{"write_file", "a", "references/" + strings.Repeat("x", 600), Target{}, "at most 512"},
		// Actions and their arguments.
		{"write_file", "a", "", Target{}, "needs file_path"},
		{"remove_file", "a", "", Target{}, "needs file_path"},
		{"create", "a", "references/x.md", Target{}, "takes no file_path"},
		{"delete", "a", "references/x.md", Target{}, "takes no file_path"},
		{"rename", "a", "", Target{}, "unknown action"},
	}
	for _, tc := range tests {
		got, err := Resolve(tc.action, tc.name, tc.file)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Resolve(%q, %q, %q) = %v, %v; want an error containing %q", tc.action, tc.name, tc.file, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q, %q, %q) = %+v, %v; want %+v", tc.action, tc.name, tc.file, got, err, tc.want)
		}
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("patch", "a", "references/x")
	f.Add("", "..", "../x")
	f.Fuzz(func(t *testing.T, action, name, file string) {
		got, err := Resolve(action, name, file)
		if err != nil {
			return
		}
		for _, seg := range strings.Split(got.Rel, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, ".") {
				t.Fatalf("Resolve(%q, %q, %q) = %q: a bad segment passed", action, name, file, got.Rel)
			}
		}
	})
}
