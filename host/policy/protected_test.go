package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

func TestGitRunsFrom(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{".git/config", true}, {".git/config.worktree", true}, {".git/hooks/pre-commit", true},
		{".git/hooks", true}, {".git/info/attributes", true}, {".git/commondir", true},
		{".git/worktrees/w/config.worktree", true}, {".git/modules/sub/config", true},
		{".gitmodules", true}, {".gitattributes", true}, {"sub/.gitattributes", true},
		{"vendor/lib/.git/config", true}, {".git", true}, {"sub/.git", true}, {".GIT/CONFIG", true},
		{".git/objects/ab/cdef", false}, {".git/HEAD", false}, {".gitignore", false},
		{"src/main.go", false}, {"docs/.gitmodules.md", false}, {"config", false}, {".github/workflows/ci.yml", false},
	} {
		if got := gitRunsFrom(tc.rel); got != tc.want {
			t.Errorf("gitRunsFrom(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}

// The core's files and slots are protected as written and through a
// symlink into them; the state directory likewise counts through links.
func TestProtectedWhyAndInState(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	state := filepath.Join(base, "state")
	for _, d := range []string{root + "/agent/tools", root + "/src", state + "/packages"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"slot": "agent/tools", "st": state, "gitlink": ".git", "hooks": ".git/hooks"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(root+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Root: root, Core: []string{root + "/agent/agent.yaml", root + "/agent/tools"}, State: state}
	for _, tc := range []struct {
		rel       string
		protected bool
	}{
		{"agent/agent.yaml", true}, {"agent/tools/evil/tool.yaml", true}, {"agent/tools", true},
		{"slot/evil/module.py", true}, {"gitlink/config", true}, {"hooks/pre-push", true},
		{".git/config", true}, {"agent/notes.md", false}, {"src/a.go", false}, {"agent", false},
	} {
		if got := ws.ProtectedWhy(filepath.Join(root, tc.rel)) != ""; got != tc.protected {
			t.Errorf("ProtectedWhy(%s) protected = %v, want %v", tc.rel, got, tc.protected)
		}
	}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{root + "/st/packages/lock.json", true}, {state + "/packages/lock.json", true}, {state, true},
		{root + "/st", true}, {root + "/src/a.go", false}, {base + "/statefile", false},
	} {
		if got := ws.InState(tc.path); got != tc.want {
			t.Errorf("InState(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	for _, tc := range []struct {
		command string
		want    int
	}{
		{"echo x > .git/config", 1}, {"echo x >> ./.git/hooks/post-checkout", 1}, {"true; echo x >agent/agent.yaml", 1},
		{"cat a &> 'agent/tools/x/tool.yaml'", 1}, {`echo > ".gitmodules"`, 1}, {"echo x >| slot/t/tool.yaml", 1},
		{"(echo x > .git/config) && echo y > .gitattributes", 2}, {"f() { echo x > .git/config; }; f", 1},
		{"echo x > notes.txt", 0}, {"cat < .git/config", 0}, {"echo x > $F", 0}, {"echo x 2>&1", 0},
		// a change of directory first: judged by name too
		{"cd agent && echo x > agent.yaml", 1}, {"cd sub; echo x > ../.git/config", 1},
		{"pushd agent/tools/evil; echo x > tool.yaml", 1}, {"builtin cd src && echo x > config", 1},
		{"(cd .git && echo x > config)", 1}, {"cd .git; echo x >> hooks/pre-commit", 1}, {"cd src && echo x > notes.txt", 0},
	} {
		if got, _ := ws.protectedRedirects(tc.command, root); len(got) != tc.want {
			t.Errorf("protectedRedirects(%q) = %q, want %d targets", tc.command, got, tc.want)
		}
	}
}

// TestAClientsConfigurationIsTheOperators: a write to the file an MCP or
// ACP client starts demiurge from (.mcp.json and the like: the operator's
// --approve rules and --sandbox for `mcp serve` or `acp`) is protected as
// the core is, as written, in any case, in a project below the top,
// through a symlink, and as a command's redirect target (by name after a
// change of directory).
func TestAClientsConfigurationIsTheOperators(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	for _, d := range []string{root + "/.cursor", root + "/.zed", root + "/src"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".cursor/mcp.json", filepath.Join(root, "cfg")); err != nil {
		t.Fatal(err)
	}
	// The client reads the link's target: a write through the link is one.
	if err := os.Symlink("../src/zed.json", filepath.Join(root, ".zed/settings.json")); err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Root: root}
	for _, tc := range []struct {
		rel       string
		protected bool
	}{
		{".mcp.json", true}, {"sub/project/.mcp.json", true}, {".MCP.JSON", true},
		{".claude/settings.json", true}, {".claude/settings.local.json", true}, {".cursor/mcp.json", true},
		{".vscode/mcp.json", true}, {".zed/settings.json", true}, {".gemini/settings.json", true},
		{"cfg", true}, {".zed/settings.json", true},
		{"mcp.json", false}, {"src/settings.json", false}, {".vscode/launch.json", false}, {".mcp.json.bak", false},
		{".claude/commands/x.md", false},
	} {
		if got := ws.ProtectedWhy(filepath.Join(root, tc.rel)) != ""; got != tc.protected {
			t.Errorf("ProtectedWhy(%s) protected = %v, want %v", tc.rel, got, tc.protected)
		}
	}
	for _, tc := range []struct {
		command string
		want    int
	}{
		{"echo '{}' > .mcp.json", 1}, {"cat x >> .claude/settings.local.json", 1}, {"echo x > ./.vscode/mcp.json", 1},
		{"cd .claude && echo x > settings.json", 1}, {"cd .cursor; echo x > MCP.json", 1},
		{"echo x > mcp.json", 0}, {"cd src && echo x > notes.txt", 0},
	} {
		if got, _ := ws.protectedRedirects(tc.command, root); len(got) != tc.want {
			t.Errorf("protectedRedirects(%q) = %q, want %d targets", tc.command, got, tc.want)
		}
	}
}

// Assess marks a write to a protected path, and only a write, as
// Protected (approval.Rule: then only the operator's answer or their rule
// naming the exact path approves it); a read of the same path is an
// ordinary read.
func TestAssessMarksOnlyWritesToProtectedPaths(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	if err := os.MkdirAll(root+"/agent/tools", 0o755); err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Root: root, Core: []string{root + "/agent/agent.yaml", root + "/agent/tools"}}
	for _, rel := range []string{"agent/agent.yaml", "agent/tools/evil/tool.yaml", ".git/hooks/pre-commit"} {
		w, err := Assess(writeSpec(), writeSpec().Metadata, map[string]any{"path": rel}, ws)
		if err != nil {
			t.Fatal(err)
		}
		if !w.Subjects[0].Protected || !strings.Contains(strings.Join(w.Reasons, ";"), "only the operator's answer") {
			t.Errorf("write %s: protected %v, reasons %q", rel, w.Subjects[0].Protected, w.Reasons)
		}
		r, err := Assess(readSpec(), readSpec().Metadata, map[string]any{"path": rel}, ws)
		if err != nil {
			t.Fatal(err)
		}
		if r.Subjects[0].Protected || r.Approval != catalog.ApprovalAuto {
			t.Errorf("read %s: protected %v, %v %q", rel, r.Subjects[0].Protected, r.Approval, r.Reasons)
		}
	}
}

// TestCoreNamedThroughALinkIsProtected: a core slot the workspace names
// through a symlink (agentlink/tools, agentlink -> agent) protects the
// directory it leads to, written by its real name.
func TestCoreNamedThroughALinkIsProtected(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	if err := os.MkdirAll(root+"/agent/tools", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("agent", root+"/agentlink"); err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Root: root, Core: []string{root + "/agentlink/tools"}}
	for _, p := range []string{root + "/agent/tools/evil/tool.yaml", root + "/agentlink/tools/evil/tool.yaml"} {
		if why := ws.ProtectedWhy(p); why == "" {
			t.Errorf("ProtectedWhy(%s) is empty", p)
		}
	}
	if why := ws.ProtectedWhy(root + "/agent/notes.md"); why != "" {
		t.Errorf("agent/notes.md: %s", why)
	}
}

// TestStateNamedThroughALink: a state (or configuration) directory given
// through a symlink holds what lies under the directory it leads to,
// written by its real name.
func TestStateNamedThroughALink(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{base + "/ws", base + "/state/packages", base + "/config"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"statelink": "state", "configlink": "config"} {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws := Workspace{Root: base + "/ws", State: base + "/statelink", Config: base + "/configlink"}
	for _, p := range []string{base + "/state/packages/lock.json", base + "/config/mcp-private.yaml", base + "/statelink/x"} {
		if !ws.InState(p) {
			t.Errorf("InState(%s) = false", p)
		}
	}
	if ws.InState(base + "/ws/x") {
		t.Error("a workspace file is in the state")
	}
}

// TestHomeConfigurationIsProtected: under the operator's home, a
// dot-entry and ~/bin are protected, as written and through a link to
// the home (a home named through a link, as HOME=/home/u with /home ->
// /data/home); other files, and the home itself, are not.
func TestHomeConfigurationIsProtected(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(base, "data", "u")
	for _, d := range []string{home + "/.config/git", home + "/bin", home + "/proj"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "data"), filepath.Join(base, "home")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(base, "home", "u"))
	ws := Workspace{Root: home}
	for _, tc := range []struct {
		p         string
		protected bool
	}{
		{home + "/.bashrc", true}, {home + "/.config/git/config", true}, {home + "/bin/ls", true},
		{base + "/home/u/.profile", true}, {base + "/home/u/bin/x", true},
		{home + "/proj/main.go", false}, {home + "/notes.txt", false}, {home, false}, {base + "/home/u/notes.txt", false},
	} {
		if got := ws.ProtectedWhy(tc.p) != ""; got != tc.protected {
			t.Errorf("ProtectedWhy(%s) protected = %v, want %v: %s", tc.p, got, tc.protected, ws.ProtectedWhy(tc.p))
		}
	}
	t.Setenv("HOME", "relative/home")
	if why := ws.ProtectedWhy(home + "/.bashrc"); why != "" {
		t.Errorf("a relative HOME protected %s: %s", home+"/.bashrc", why)
	}
}
