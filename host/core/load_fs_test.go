package core

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// writeCore makes a core directory holding agent.yaml with body and the
// given subdirectories; it returns the resolved directory.
func writeCore(t *testing.T, body string, dirs ...string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func wantLoadError(t *testing.T, err error, field, msg string) *LoadError {
	t.Helper()
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T), want *LoadError", err, err)
	}
	if le.Field != field || !strings.Contains(le.Msg, msg) {
		t.Fatalf("error %q: want field %q and a message containing %q", err, field, msg)
	}
	return le
}

func TestSlotRootSymlinks(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		body  string
		msg   string // "" = loads
	}{
		{"symlink out of the core", func(t *testing.T, dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, "agent", "tools")); err != nil {
				t.Fatal(err)
			}
		}, "slots: {tools: agent/tools}", "resolves through a symlink to"},
		{"symlink within the core", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../real", filepath.Join(dir, "agent", "tools")); err != nil {
				t.Fatal(err)
			}
		}, "slots: {tools: agent/tools}", ""},
		{"dotdot that stays inside", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "agent", "mcp"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "slots: {mcp: agent/../agent/mcp}", ""},
		{"the core directory itself", func(t *testing.T, dir string) {}, "slots: {tools: .}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeCore(t, tc.body, "agent")
			tc.setup(t, dir)
			c, err := Load(dir)
			if tc.msg != "" {
				wantLoadError(t, err, "slots.tools", tc.msg)
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			for _, root := range []string{c.ToolsRoot, c.MCPRoot} {
				if root != "" && !within(dir, root) {
					t.Errorf("root %s is not inside %s", root, dir)
				}
			}
		})
	}
}

func TestSlotRootAbsoluteInsideCore(t *testing.T) {
	dir := writeCore(t, "", "agent/tools")
	abs := filepath.Join(dir, "agent", "tools")
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("slots:\n  tools: "+abs+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.ToolsRoot != abs || c.MCPRoot != "" {
		t.Errorf("ToolsRoot, MCPRoot = %q, %q; want %q, \"\"", c.ToolsRoot, c.MCPRoot, abs)
	}
}

// TestCoreDirThroughSymlink loads a core through a symlinked path: Dir and
// the roots are the resolved paths, and containment still holds.
func TestCoreDirThroughSymlink(t *testing.T) {
	dir := writeCore(t, "slots: {tools: agent/tools}\nworkspace: .\n", "agent/tools")
	link := filepath.Join(t.TempDir(), "core")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	c, err := Load(link)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Dir != dir || c.ToolsRoot != filepath.Join(dir, "agent", "tools") || c.Workspace != dir {
		t.Errorf("Load through a symlink: Dir %q ToolsRoot %q Workspace %q; want under %q", c.Dir, c.ToolsRoot, c.Workspace, dir)
	}
	if c.File != filepath.Join(link, FileName) {
		t.Errorf("File = %q, want the path as given, %q", c.File, filepath.Join(link, FileName))
	}
}

func TestLoadFileErrors(t *testing.T) {
	t.Run("no such directory", func(t *testing.T) {
		_, err := Load(filepath.Join(t.TempDir(), "missing"))
		wantLoadError(t, err, "", "agent.yaml does not exist")
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v does not wrap fs.ErrNotExist", err)
		}
	})
	t.Run("agent.yml instead", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "agent.yml"), []byte("toolsets: [coding]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		wantLoadError(t, err, "", "agent.yml does, rename it to agent.yaml")
	})
	t.Run("Load given the file", func(t *testing.T) {
		dir := writeCore(t, "toolsets: [coding]\n")
		_, err := Load(filepath.Join(dir, FileName))
		wantLoadError(t, err, "", "is a file, not an agent core directory")
	})
	t.Run("agent.yaml is a directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, FileName), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		wantLoadError(t, err, "", "is not a regular file")
	})
	t.Run("over 1 MiB", func(t *testing.T) {
		body := "toolsets: [coding]\n" + strings.Repeat("# padding\n", MaxFileSize/10+1)
		dir := writeCore(t, body)
		_, err := Load(dir)
		wantLoadError(t, err, "", "over the 1048576-byte limit")
	})
	t.Run("exactly 1 MiB loads", func(t *testing.T) {
		head := "toolsets: [coding]\n"
		body := head + strings.Repeat("#", MaxFileSize-len(head))
		dir := writeCore(t, body)
		if _, err := Load(dir); err != nil {
			t.Fatalf("Load of a %d-byte file: %v", len(body), err)
		}
	})
}

func TestLoadErrorFormat(t *testing.T) {
	tests := []struct {
		err  LoadError
		want string
	}{
		{LoadError{File: "agent.yaml", Line: 12, Column: 5, Field: "tools.metadata.web_extract.risk", Msg: `unknown risk "lowest" (want low, medium or high)`},
			`agent.yaml:12:5: tools.metadata.web_extract.risk: unknown risk "lowest" (want low, medium or high)`},
		{LoadError{File: "agent.yaml", Line: 3, Msg: "invalid YAML: x"}, "agent.yaml:3: invalid YAML: x"},
		{LoadError{File: "/c/agent.yaml", Msg: "agent.yaml is empty"}, "/c/agent.yaml: agent.yaml is empty"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestSuggestKeys(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"toolset", "toolsets"},
		{"Toolsets", "toolsets"},
		{"capabilites", "capabilities"},
		{"workspce", "workspace"},
		{"xyz", ""},
		{"approvals_policy", ""},
		{strings.Repeat("a", 100), ""},
	}
	for _, tc := range tests {
		if got := catalog.Suggest(tc.in, topKeys); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLongValuesAreClipped: a huge key or value is quoted in the error
// only in part, so the message stays readable.
func TestLongValuesAreClipped(t *testing.T) {
	long := strings.Repeat("k", 100000)
	for _, body := range []string{
		long + ": 1\n",
		"toolsets: [" + long + "]\n",
		"tools: {metadata: {write_file: {risk: " + long + "}}}\n",
		"slots: {tools: " + long + "}\n",
	} {
		_, err := Load(writeCore(t, body))
		if err == nil {
			t.Fatal("Load succeeded, want an error")
		}
		if n := len(err.Error()); n > 1000 {
			t.Errorf("error is %d bytes long: %.200s…", n, err)
		}
	}
}
