package sandboxing

import (
	"demiurge.dev/host/policy/shellguard"
	"demiurge.dev/shared/sandbox"
)

// WorkspaceProtected is what of workspace ws every sandboxed program
// (a command, an authored tool's worker, an opted-in MCP server) finds
// read-only in the write modes, and what the helper watches because it
// is missing: the entries of .git that git reads for configuration and
// hooks, the MCP and ACP clients' configuration, and what the
// repository's configuration names (an included file, the hooks
// directory, the programs its values name at the workspace's top). One list for all three: stop 50 found the worker's and the
// server's policies holding git's fixed paths only, so an authored tool
// wrote .mcp.json and .claude/settings.local.json.
func WorkspaceProtected(ws string) (held, watched []string) {
	held = append(held, sandbox.GitProtected(ws)...)
	held = append(held, sandbox.ClientConfigProtected(ws)...)
	reach := shellguard.ReachOfGitConfig(ws)
	named, watched := sandbox.GitReachHeld(ws, append(append(reach.Files, reach.Dirs...), reach.Programs...))
	return append(held, named...), watched
}
