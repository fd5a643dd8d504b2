package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeGrants(t *testing.T, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "config", "demiurge")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, PathGrantsFileName)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestPathGrantsMatchTheirPathOnly: a grant reaches the tools and slots
// under its pattern in its own core, and nothing else: not a sibling whose
// name starts the same, not another core, not another spelling.
func TestPathGrantsMatchTheirPathOnly(t *testing.T) {
	coreDir := t.TempDir()
	file := writeGrants(t, "cores:\n  deployer:\n    tools/deploy/**: [tool.call:deploy, secret.bind:DEPLOY_TOKEN]\n    slots/*: [fs.read]\n  "+coreDir+":\n    \"**\": [network.fetch]\n")
	g, err := LoadPathGrants(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	dep := g.ForCore("deployer", "")
	for _, c := range []struct {
		path string
		want []string
	}{
		{"tools/deploy", []string{"tool.call:deploy", "secret.bind:DEPLOY_TOKEN"}},
		{"tools/deploy/sub", []string{"tool.call:deploy", "secret.bind:DEPLOY_TOKEN"}},
		{"tools/deploy_prod", nil},
		{"tools/Deploy", nil},
		{"Tools/deploy", nil},
		{"tools/deploy/", nil},
		{"tools//deploy", nil},
		{"./tools/deploy", nil},
		{"tools/x/../deploy", nil},
		{"tools/*", nil},
		{"tools/deploy/../../evil", nil},
		{"tools/deploy/*", nil},
		{"slots/review", []string{"fs.read"}},
		{"slots/review/x", nil},
		{"", nil},
	} {
		var got []string
		for _, h := range dep.For(c.path) {
			got = append(got, h.Capability)
			if h.File != file || h.Line != 3 && h.Line != 4 {
				t.Errorf("%s: origin %s", c.path, h.Origin())
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%q: got %v, want %v", c.path, got, c.want)
		}
	}
	if got := g.ForCore("other", "").For("tools/deploy"); got != nil {
		t.Errorf("another core id got %v", got)
	}
	if got := g.ForCore("", coreDir).For("tools/deploy"); len(got) != 1 || got[0].Capability != "network.fetch" {
		t.Errorf("the directory core: %v", got)
	}
	// A core directory named through a link is the directory it leads to.
	link := filepath.Join(t.TempDir(), "corelink")
	if err := os.Symlink(coreDir, link); err != nil {
		t.Fatal(err)
	}
	lg, err := LoadPathGrants(writeGrants(t, "cores:\n  "+link+":\n    \"**\": [network.fetch]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := lg.ForCore("", coreDir).For("tools/deploy"); len(got) != 1 {
		t.Errorf("the directory core named through a link: %v", got)
	}
	if got := g.ForCore("", filepath.Join(coreDir, "x")).For("tools/deploy"); got != nil {
		t.Errorf("a directory beneath the core got %v", got)
	}
	// A repository core is found by its id only, never by a directory.
	if got := g.ForCore("other", coreDir).For("tools/deploy"); got != nil {
		t.Errorf("a repository core without grants got the directory's: %v", got)
	}
	if got := g.ForCore("deployer", coreDir).For("tools/deploy"); len(got) != 2 {
		t.Errorf("the id core: %v", got)
	}
	if g.Digest() == "" {
		t.Error("no digest")
	}
}

// TestPathGrantsRefused: every malformed or over-reaching line is an error
// naming the file, its line and its field.
func TestPathGrantsRefused(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"cores: {x: {../tools/deploy: [fs.read]}}\n", `:1: cores.x.../tools/deploy: path pattern "../tools/deploy" has a ".." segment`},
		{"cores:\n  x:\n    ./tools/deploy: [fs.read]\n", `:3: cores.x../tools/deploy: path pattern "./tools/deploy" has a "." segment`},
		{"cores:\n  x:\n    /tools/deploy: [fs.read]\n", `:3: cores.x./tools/deploy: path pattern "/tools/deploy" has an empty segment`},
		{"cores:\n  x:\n    tools/deploy/: [fs.read]\n", `empty segment`},
		{"cores:\n  x:\n    tools//deploy: [fs.read]\n", `empty segment`},
		{"cores:\n  x:\n    'tools/dep\\*loy': [fs.read]\n", `'\\' is not allowed`},
		{"cores:\n  x:\n    tools/dep?oy: [fs.read]\n", `'?' is not allowed`},
		{"cores:\n  x:\n    tools/{a,b}: [fs.read]\n", `'{' is not allowed`},
		{"cores:\n  x:\n    tools/a@b: [fs.read]\n", `'@' is not allowed`},
		{"cores:\n  x:\n    tools/a[b: [fs.read]\n", `'[' is not allowed`},
		{"cores:\n  x:\n    'tools/a`b': [fs.read]\n", "'`' is not allowed"},
		{"cores:\n  x:\n    'tools/a:b': [fs.read]\n", `':' is not allowed`},
		{"cores:\n  x:\n    tools/a**: [fs.read]\n", `** must be a whole segment`},
		{"cores:\n  x:\n    tools/a: [fs.read]\n    tools/a: [fs.write]\n", `:4: cores.x.tools/a: this pattern is written twice`},
		{"cores:\n  x:\n    tools/a: []\n", `:3: cores.x.tools/a: want a non-empty list`},
		{"cores:\n  x:\n    tools/a: fs.read\n", `want a non-empty list`},
		{"cores:\n  x:\n    tools/a: [fs.read, [fs.write]]\n", `:3: cores.x.tools/a[1]: want a capability name`},
		{"cores:\n  x:\n    tools/a: [\"tool.call:*\"]\n", `never a wildcard`},
		{"cores:\n  x:\n    tools/a: [\"mcp.call:*\"]\n", `never a wildcard`},
		{"cores:\n  x:\n    tools/a: [secret.bind:A*]\n", `wildcards are refused`},
		{"cores:\n  x:\n    tools/a: [mcp.connect:fs]\n", `cannot be granted by path: it gates an MCP server`},
		{"cores:\n  x:\n    tools/a: [schedule.manage]\n", `cannot be granted by path: it manages`},
		{"cores:\n  x:\n    tools/a: [tool.call:evolve_core]\n", `cannot be granted by path: it changes the agent's core`},
		{"cores:\n  x:\n    tools/a: [tool.call:rollback_core]\n", `cannot be granted by path`},
		{"cores:\n  x:\n    tools/a: [tool.call:delegate_task]\n", `cannot be granted by path: it starts child agents`},
		{"cores:\n  x:\n    tools/a: [fs.reed]\n", `:3: cores.x.tools/a[0]: unknown capability "fs.reed"`},
		{"cores:\n  X:\n    tools/a: [fs.read]\n", `:2: cores.X: core id "X"`},
		{"cores:\n  /a/../b:\n    tools/a: [fs.read]\n", `write the core directory in its clean form, /b`},
		{"cores:\n  /a/b/:\n    tools/a: [fs.read]\n", `clean form, /a/b`},
		{"cores:\n  x: {tools/a: [fs.read]}\n  x: {tools/b: [fs.read]}\n", `:3: cores.x: this core is named twice`},
		{"cores: [x]\n", `:1: cores: want a mapping`},
		{"grants: {}\n", `:1: grants: unknown key`},
		{"- cores\n", `want a mapping with the one key cores`},
		{"cores: {x: {a: [fs.read]}\n", `did not find expected`},
	} {
		file := writeGrants(t, c.body)
		_, err := LoadPathGrants(file, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), file) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	// The allowed shapes.
	for _, ok := range []string{"", "cores: {}\n", "cores: {x: {tools/a: [fs.read, secret.bind:A, tool.call:a, network.fetch, session.read, fs.write, terminal.exec]}}\n", "cores: {x: {\"tools/*_ci/**\": [fs.read]}}\n", "cores: {x: {tools/zAZ09: [fs.read]}}\n"} {
		if _, err := LoadPathGrants(writeGrants(t, ok), nil); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if g, err := LoadPathGrants(filepath.Join(t.TempDir(), "none.yaml"), nil); err != nil || g.ForCore("x", "") != nil {
		t.Errorf("a missing file: %v %v", g, err)
	}
}

// TestPathGrantsFilePlace: the file is the operator's only: not inside a
// directory an agent may write (as written or through a symlink), not a
// symlink itself, not writable by others, not in a directory others may
// write.
func TestPathGrantsFilePlace(t *testing.T) {
	body := "cores: {x: {tools/a: [fs.read]}}\n"
	file := writeGrants(t, body)
	cfg := filepath.Dir(filepath.Dir(file))
	if _, err := LoadPathGrants(file, []AgentDir{{Name: "core", Path: filepath.Dir(cfg)}}); err == nil || !strings.Contains(err.Error(), "lies inside the core") {
		t.Errorf("inside the core: %v", err)
	}
	// A configuration directory that leads into the workspace through a
	// symlink: the path as written is outside it, the file is inside.
	ws := t.TempDir()
	inWS := filepath.Join(ws, ".config", "demiurge")
	if err := os.MkdirAll(inWS, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inWS, PathGrantsFileName), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgLink := filepath.Join(t.TempDir(), "config")
	if err := os.Symlink(filepath.Join(ws, ".config"), cfgLink); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPathGrants(filepath.Join(cfgLink, "demiurge", PathGrantsFileName), []AgentDir{{Name: "workspace", Path: ws}}); err == nil || !strings.Contains(err.Error(), "lies inside the workspace") {
		t.Errorf("through a symlink into the workspace: %v", err)
	}
	link := filepath.Join(t.TempDir(), "grants.yaml")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPathGrants(link, nil); err == nil || !strings.Contains(err.Error(), "not a symlink") {
		t.Errorf("a symlink: %v", err)
	}
	for _, mode := range []os.FileMode{0o620, 0o602, 0o666} {
		os.Chmod(file, mode)
		if _, err := LoadPathGrants(file, nil); err == nil || !strings.Contains(err.Error(), "writable by others") {
			t.Errorf("mode %v: %v", mode, err)
		}
	}
	os.Chmod(file, 0o600)
	notFile := filepath.Join(t.TempDir(), "config", "demiurge", PathGrantsFileName)
	if err := os.MkdirAll(notFile, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPathGrants(notFile, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	os.Chmod(filepath.Dir(file), 0o770)
	if _, err := LoadPathGrants(file, nil); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a group-writable directory: %v", err)
	}
	os.Chmod(filepath.Dir(file), 0o700)
	if err := os.WriteFile(file, []byte(strings.Repeat("#", OperatorFileMax+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPathGrants(file, nil); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("an oversized file: %v", err)
	}
}

// TestReadmePathGrantsExample loads the README's grants.yaml example.
func TestReadmePathGrantsExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```yaml\n# ~/.config/demiurge/grants.yaml\n")
	if !ok {
		t.Fatal("README has no grants.yaml example")
	}
	example, _, _ := strings.Cut(rest, "```")
	g, err := LoadPathGrants(writeGrants(t, example), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.ForCore("default", "").For("tools/deploy"); len(got) != 2 || got[1].Capability != "secret.bind:DEPLOY_TOKEN" {
		t.Errorf("deploy: %v", got)
	}
	if got := g.ForCore("default", "").For("tools/other"); got != nil {
		t.Errorf("another tool: %v", got)
	}
}
