package core

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSkillsSlot: slots.skills is a slot root like tools and mcp, with
// the same containment, so a skills root symlinked out of the core is
// refused at load time.
func TestSkillsSlot(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		body  string
		field string
		msg   string // "" = loads
	}{
		{"a directory inside the core", func(t *testing.T, dir string) {}, "slots: {skills: agent/skills}", "", ""},
		{"symlink out of the core", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "agent", "skills")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, "agent", "skills")); err != nil {
				t.Fatal(err)
			}
		}, "slots: {skills: agent/skills}", "slots.skills", "resolves through a symlink to"},
		{"dotdot out of the core", func(t *testing.T, dir string) {}, "slots: {skills: ../skills}", "slots.skills", "leaves the core directory"},
		{"absolute outside", func(t *testing.T, dir string) {}, "slots: {skills: " + outside + "}", "slots.skills", "is outside the core directory"},
		{"missing", func(t *testing.T, dir string) {}, "slots: {skills: agent/nope}", "slots.skills", "does not exist"},
		{"not a string", func(t *testing.T, dir string) {}, "slots: {skills: [a]}", "slots.skills", "want a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeCore(t, tc.body, "agent/skills")
			tc.setup(t, dir)
			c, err := Load(dir)
			if tc.msg != "" {
				wantLoadError(t, err, tc.field, tc.msg)
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if want := filepath.Join(dir, "agent", "skills"); c.SkillsRoot != want {
				t.Errorf("SkillsRoot = %q, want %q", c.SkillsRoot, want)
			}
		})
	}
}

func TestNoSkillsSlot(t *testing.T) {
	c, err := Load(writeCore(t, "toolsets: [coding]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.SkillsRoot != "" {
		t.Errorf("SkillsRoot = %q without slots.skills", c.SkillsRoot)
	}
	if Default().SkillsRoot != "" {
		t.Error("the embedded core declares a skills root; the host derives it from the state directory")
	}
}

func TestToolsDeferred(t *testing.T) {
	tests := []struct {
		name, body, field, msg string
		want                   []string
	}{
		{"toolsets servers and tools", "tools:\n  deferred: [docs, web_extract, coding]\n", "", "", []string{"docs", "web_extract", "coding"}},
		{"with metadata", "tools:\n  metadata: {patch: {risk: high}}\n  deferred: [docs]\n", "", "", []string{"docs"}},
		{"not a list", "tools:\n  deferred: docs\n", "tools.deferred", "want a list", nil},
		{"bad name", "tools:\n  deferred: [\"a b\"]\n", "tools.deferred[0]", "is not a toolset, MCP server or tool name", nil},
		{"duplicate", "tools:\n  deferred: [docs, docs]\n", "tools.deferred[1]", "duplicate", nil},
		{"search_capabilities", "tools:\n  deferred: [search_capabilities]\n", "tools.deferred[0]", "cannot be deferred", nil},
		{"misspelt key", "tools:\n  defered: [docs]\n", "tools.defered", `did you mean "deferred"?`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(writeCore(t, tc.body))
			if tc.msg != "" {
				wantLoadError(t, err, tc.field, tc.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Deferred, tc.want) {
				t.Errorf("Deferred = %q, want %q", c.Deferred, tc.want)
			}
			d := c.clone()
			d.Deferred[0] = "changed"
			if c.Deferred[0] == "changed" {
				t.Error("clone shares Deferred")
			}
		})
	}
}

func TestMCPManifestDeferred(t *testing.T) {
	s, err := ParseMCPServer([]byte("url: https://mcp.example/mcp\ndeferred: true\n"), "/core/agent/mcp/docs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Deferred {
		t.Error("deferred: true did not set Deferred")
	}
	s, err = ParseMCPServer([]byte("url: https://mcp.example/mcp\n"), "/core/agent/mcp/docs.yaml")
	if err != nil || s.Deferred {
		t.Errorf("a manifest without deferred: Deferred=%v err=%v", s.Deferred, err)
	}
	if _, err := ParseMCPServer([]byte("url: https://mcp.example/mcp\ndeferred: yes please\n"), "/core/agent/mcp/docs.yaml"); err == nil {
		t.Error("deferred: 'yes please' loaded")
	}
}
