package pathrules

import "testing"

// TestIsClientConfig: the clients' files at any depth and in any case,
// nothing else.
func TestIsClientConfig(t *testing.T) {
	for rel, want := range map[string]bool{
		".mcp.json": true, "a/b/.mcp.json": true, ".Claude/Settings.Local.json": true, ".zed/settings.json": true,
		"./.cursor/mcp.json": true, ".gemini/settings.json": true, ".vscode/mcp.json": true,
		"mcp.json": false, "settings.json": false, ".claude": false, ".mcp.json/x": false, ".vscode/settings.json": false,
		"x.mcp.json": false, ".claude.json": true, "home/u/.codex/config.toml": true, ".config/zed/settings.json": true,
		".config/code/user/mcp.json": true, ".config/Claude/claude_desktop_config.json": true, "zed/settings.json": false,
		".codex/other.toml": false,
		// Stop 50: more clients' files, in a project and in a home.
		".cursor/permissions.json": true, ".kiro/settings/mcp.json": true, ".roo/mcp.json": true,
		"crush.json": true, "sub/.crush.json": true, "opencode.json": true, "opencode.jsonc": true,
		".opencode/opencode.json": true, ".copilot/mcp-config.json": true, ".codeium/windsurf/mcp_config.json": true,
		".config/crush/crush.json": true, ".config/opencode/opencode.jsonc": true,
		".kiro/specs/mcp.json": false, "opencode.json.bak": false, ".roo/rules/notes.md": false,
	} {
		if got := IsClientConfig(rel); got != want {
			t.Errorf("IsClientConfig(%q) = %v, want %v", rel, got, want)
		}
	}
	for name, want := range map[string]bool{"mcp.json": true, "SETTINGS.json": true, "settings.local.json": true, ".mcp.json": true, "config": false,
		"permissions.json": true, "crush.json": true, "opencode.jsonc": true, "mcp_config.json": true, "notes.json": false} {
		if got := IsClientConfigName(name); got != want {
			t.Errorf("IsClientConfigName(%q) = %v, want %v", name, got, want)
		}
	}
}
