package toolhost

import (
	"path/filepath"

	"demiurge.dev/host/core"
)

// protectedCore are the parts of the active core that decide what the
// agent may do: agent.yaml and the slot directories (tools, where
// packages are placed too; mcp; skills). Writes to them need the
// operator (policy.Workspace.ProtectedWhy). The embedded core has none on
// disk.
func protectedCore(c *core.Core) []string {
	if c.Dir == "" || c.Version != nil { // a versioned core's copy is under the state directory
		if c.SkillsRoot != "" {
			return []string{c.SkillsRoot} // the user's skills directory
		}
		return nil
	}
	out := []string{c.File, filepath.Join(c.Dir, "skills")}
	if c.SkillsRoot != "" {
		out = append(out, c.SkillsRoot)
	}
	for _, d := range []string{c.ToolsRoot, c.MCPRoot, slotsRoot(c)} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
