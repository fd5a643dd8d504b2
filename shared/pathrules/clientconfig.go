package pathrules

import (
	"path/filepath"
	"strings"
)

// ClientConfigs are the files, relative to a project's top (or to a
// home directory, for a workspace that is one), in which an MCP or ACP
// client reads the command lines of the servers and agents it starts, or
// what it runs without asking: Claude Code (.mcp.json, ~/.claude.json;
// .claude/settings*.json, which enable those servers and run hooks),
// Cursor (and its permissions.json allowlists), VS Code and Copilot, Zed
// (context and agent servers), Gemini CLI, Codex, Claude Desktop, Kiro,
// Roo Code, Windsurf, Crush and opencode (whose project file names no
// directory). A project that serves demiurge to its client keeps
// `demiurge ... mcp serve` or `demiurge ... acp` there, with the
// operator's --approve rules and --sandbox: whoever writes the file
// chooses them for the client's next start.
var ClientConfigs = []string{
	".mcp.json", ".claude.json",
	".claude/settings.json", ".claude/settings.local.json",
	".cursor/mcp.json", ".cursor/permissions.json",
	".vscode/mcp.json",
	".zed/settings.json",
	".gemini/settings.json",
	".codex/config.toml",
	".kiro/settings/mcp.json",
	".roo/mcp.json",
	".crush.json", "crush.json",
	"opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc",
	".config/zed/settings.json",
	".config/Code/User/mcp.json",
	".config/Claude/claude_desktop_config.json",
	".copilot/mcp-config.json",
	".codeium/windsurf/mcp_config.json",
	".config/crush/crush.json",
	".config/opencode/opencode.json", ".config/opencode/opencode.jsonc",
}

// IsClientConfig reports whether rel, a relative slash- or
// OS-separated path, ends in one of ClientConfigs (at any depth: a
// project inside the workspace has its own), compared without case.
func IsClientConfig(rel string) bool {
	segs := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	for _, c := range ClientConfigs {
		want := strings.Split(c, "/")
		if len(segs) < len(want) {
			continue
		}
		tail := segs[len(segs)-len(want):]
		match := true
		for i := range want {
			if !strings.EqualFold(tail[i], want[i]) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// IsClientConfigName reports whether name is the last element of one of
// ClientConfigs (mcp.json, settings.json, ...), compared without case:
// for a path whose directory is not known.
func IsClientConfigName(name string) bool {
	for _, c := range ClientConfigs {
		if strings.EqualFold(name, c[strings.LastIndex(c, "/")+1:]) {
			return true
		}
	}
	return false
}
