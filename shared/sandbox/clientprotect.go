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
// read-only whole. Each is listed as its links lead (in any component:
// a mount holds no link, and a link to a dotfiles directory must not stop
// every command), when that is inside the workspace (outside, nothing is
// writable anyway). A missing top-level .mcp.json, or one whose directory is
// missing too, cannot be held (neither Landlock nor a mount refuses one
// name); the policy still asks the operator for every write of it that
// the host sees (policy.Workspace.ProtectedWhy), and one a command
// created is moved aside when it ends (creatableClientConfigs).
func ClientConfigProtected(ws string) []string {
	ws = filepath.Clean(ws)
	rws, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return nil
	}
	// inWS is real (a path without links) as the same place under ws,
	// when it lies strictly inside the workspace.
	inWS := func(real string) (string, bool) {
		rel, err := filepath.Rel(rws, real)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.Join(ws, rel), true
	}
	var out []string
	for _, c := range pathrules.ClientConfigs {
		p := filepath.Join(ws, filepath.FromSlash(c))
		if _, err := os.Lstat(p); err == nil {
			// Listed as its links lead (a mount holds no link): outside
			// the workspace nothing is writable anyway.
			if real, err := filepath.EvalSymlinks(p); err == nil {
				if q, ok := inWS(real); ok {
					out = append(out, q)
				}
			}
			continue
		}
		dir := filepath.Dir(p)
		if dir == ws {
			continue // cannot be held: see above
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				if q, ok := inWS(real); ok {
					out = append(out, filepath.Join(q, filepath.Base(p)))
				}
			}
		}
	}
	return out
}
