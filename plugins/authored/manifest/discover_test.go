package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path → content) under root; a path ending in
// "*" is made executable.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		mode := os.FileMode(0o644)
		if q, ok := strings.CutSuffix(p, "*"); ok {
			p, mode = q, 0o755
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscover(t *testing.T) {
	coreDir := t.TempDir()
	root := filepath.Join(coreDir, "agent", "tools")
	writeTree(t, root, map[string]string{
		"project_note/tool.yaml":    "description: Note.\nrisk: low\n",
		"project_note/module.py":    "def execute(ctx, args):\n    return 'ok'\n",
		"stats/tool.yaml":           "entrypoint: exec:bin/stats\n",
		"stats/bin/stats*":          "#!/bin/sh\n",
		"helpers/util.py":           "",   // no tool.yaml: not a tool
		".hidden/tool.yaml":         "x:", // hidden: skipped
		"__pycache__/tool.yaml":     "x:",
		"project_note/__init__.txt": "",
	})
	tools, err := Discover(root, coreDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 {
		t.Fatalf("Discover = %+v, want project_note and stats", tools)
	}
	note, stats := tools[0], tools[1]
	if note.ID != "project_note" || note.SlotPath != "agent/tools/project_note" || note.Risk != "low" ||
		filepath.Base(note.Program) != "module.py" || note.File != filepath.Join(root, "project_note", "tool.yaml") {
		t.Errorf("project_note = %+v", note)
	}
	if stats.ID != "stats" || stats.Entrypoint.Kind != KindExec || !strings.HasSuffix(stats.Program, "/stats/bin/stats") {
		t.Errorf("stats = %+v", stats)
	}
}

func TestDiscoverRefusals(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.py")
	if err := os.WriteFile(outside, []byte(""), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files map[string]string
		link  [2]string // symlink to make: target, link path relative to root
		want  string
	}{
		{"missing module", map[string]string{"a/tool.yaml": "risk: low\n"},
			[2]string{}, "a/tool.yaml: entrypoint: module:execute names module.py, which does not exist"},
		{"missing executable", map[string]string{"a/tool.yaml": "entrypoint: exec:bin/a\n"},
			[2]string{}, "exec:bin/a names bin/a, which does not exist"},
		{"not executable", map[string]string{"a/tool.yaml": "entrypoint: exec:a.bin\n", "a/a.bin": ""},
			[2]string{}, "is not executable"},
		{"entrypoint is a directory", map[string]string{"a/tool.yaml": "entrypoint: exec:bin\n", "a/bin/x": ""},
			[2]string{}, "is not a regular file"},
		{"module escapes by symlink", map[string]string{"a/tool.yaml": ""},
			[2]string{outside, "a/module.py"}, "outside the tool directory"},
		{"bad tool name", map[string]string{"9lives/tool.yaml": "", "9lives/module.py": ""},
			[2]string{}, `"9lives" is not a valid tool name`},
		{"slot-only field", map[string]string{"a/tool.yaml": "timeout_seconds: 3\n", "a/module.py": ""},
			[2]string{}, "a/tool.yaml:1:1: timeout_seconds: is a slot-only field"},
		{"tool.yaml is a symlink", map[string]string{"a/real.yaml": "", "a/module.py": ""},
			[2]string{"real.yaml", "a/tool.yaml"}, "is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			if tt.link[0] != "" {
				if err := os.Symlink(tt.link[0], filepath.Join(root, tt.link[1])); err != nil {
					t.Fatal(err)
				}
			}
			tools, err := Discover(root, filepath.Dir(root))
			if err == nil {
				t.Fatalf("Discover accepted it: %+v", tools)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// Every broken tool is reported at once.
func TestDiscoverReportsEveryBrokenTool(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"a/tool.yaml": "risk: none\n", "a/module.py": "",
		"b/tool.yaml": "bogus: 1\n", "b/module.py": "",
	})
	_, err := Discover(root, root)
	if err == nil || !strings.Contains(err.Error(), "a/tool.yaml:1:7: risk") || !strings.Contains(err.Error(), "b/tool.yaml:1:1: bogus") {
		t.Errorf("error = %v, want both tools named", err)
	}
}

func TestDiscoverMissingRoot(t *testing.T) {
	if _, err := Discover(filepath.Join(t.TempDir(), "nope"), ""); err == nil {
		t.Error("a missing root was accepted")
	}
}
