package toolhost

import (
	"os"
	"path/filepath"
	"testing"

	"demiurge.dev/catalog"
)

// A child of another core gets an authored tool of the parent's name only
// when it is the parent's code: the same files, byte for byte
// (subagents_core_id_authored.txtar shows the hole with the binary).
func TestAChildOfAnotherCoreGetsOnlyTheParentsAuthoredCode(t *testing.T) {
	root := t.TempDir()
	tool := func(core string, files map[string]string) catalog.ToolSpec {
		dir := filepath.Join(root, core, "tools", "report")
		for name, body := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return catalog.ToolSpec{Name: "report", Provenance: catalog.Provenance{
			Kind: catalog.SourceAuthored, Toolset: AuthoredToolset, Path: filepath.Join(dir, "tool.yaml")}}
	}
	base := map[string]string{"tool.yaml": "description: r\n", "module.py": "def execute(ctx, a): return 'a'\n", "lib/h.py": "X = 1\n"}
	mine := tool("default", base)
	if !sameAuthoredCode(mine, tool("same", base)) {
		t.Fatal("the same files in another core are not the parent's tool")
	}
	for name, files := range map[string]map[string]string{
		"same sizes, other bytes": {"tool.yaml": "description: r\n", "module.py": "def execute(ctx, a): return 'b'\n", "lib/h.py": "X = 1\n"},
		"one more file":           {"tool.yaml": "description: r\n", "module.py": "def execute(ctx, a): return 'a'\n", "lib/h.py": "X = 1\n", "lib/g.py": ""},
		"a file renamed":          {"tool.yaml": "description: r\n", "module.py": "def execute(ctx, a): return 'a'\n", "lib/i.py": "X = 1\n"},
	} {
		if sameAuthoredCode(mine, tool("other-"+filepath.Base(name), files)) {
			t.Errorf("%s: another core's code taken for the parent's tool", name)
		}
	}
	exe := tool("exe", base)
	if err := os.Chmod(filepath.Join(filepath.Dir(exe.Provenance.Path), "module.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	if sameAuthoredCode(mine, exe) {
		t.Error("an executable bit added: taken for the parent's tool")
	}
	link := tool("link", base)
	if err := os.Symlink("/etc/passwd", filepath.Join(filepath.Dir(link.Provenance.Path), "x")); err != nil {
		t.Fatal(err)
	}
	if sameAuthoredCode(link, link) {
		t.Error("a directory holding a symlink: taken for a tool (want refused)")
	}
	if sameAuthoredCode(mine, catalog.ToolSpec{Name: "report", Provenance: catalog.Provenance{Kind: catalog.SourceAuthored, Toolset: AuthoredToolset}}) {
		t.Error("an authored tool with no file: taken for the parent's")
	}
	builtin := catalog.ToolSpec{Name: "read_file", Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin, Toolset: "coding"}}
	if !sameAuthoredCode(builtin, builtin) {
		t.Error("a built-in tool is the same plugin's tool in both cores")
	}
}
