package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/shared/pathrules"
)

// ClientConfigProtected lists what of a workspace's MCP and ACP client
// configuration (pathrules.ClientConfigs, at its top) stays read-only in
// the write modes: each file that exists, and a missing one whose
// directory (.claude, .vscode, ...) exists, which protectTarget then holds
// read-only whole. A file of them that is a symlink is listed as where it
// leads when that is inside the workspace (outside, nothing is writable
// anyway). A missing top-level .mcp.json, or one whose directory is
// missing too, cannot be held (neither Landlock nor a mount refuses one
// name); the policy still asks the operator for every write of it that
// the host sees (policy.Workspace.ProtectedWhy).
func ClientConfigProtected(ws string) []string {
	ws = filepath.Clean(ws)
	var out []string
	for _, c := range pathrules.ClientConfigs {
		p := filepath.Join(ws, filepath.FromSlash(c))
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			real, err := filepath.EvalSymlinks(p)
			rws, werr := filepath.EvalSymlinks(ws)
			if err == nil && werr == nil && strings.HasPrefix(real, rws+string(filepath.Separator)) {
				out = append(out, filepath.Join(ws, strings.TrimPrefix(real, rws+string(filepath.Separator))))
			}
		case err == nil:
			out = append(out, p)
		case filepath.Dir(p) != ws:
			if d, err := os.Lstat(filepath.Dir(p)); err == nil && d.IsDir() {
				out = append(out, p)
			}
		}
	}
	return out
}
