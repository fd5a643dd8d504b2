package policy

import (
	"path/filepath"
	"strings"
)

// GuardedPath returns env (a built command environment) with PATH holding
// only the directories where a bare program name finds the program the
// shell guard judged, for a command the guard allowed: an absolute
// directory outside the workspace, as written and as its symlinks lead.
// A relative entry ("", ".", "bin") is looked up from the command's cwd,
// and a directory inside the workspace holds what the workspace holds:
// there `cat` or `git` may be any program a repository or an earlier
// command put there (TestAllowedCommandsFindNoProgramInTheWorkspace). A
// directory that cannot be resolved is dropped too. env itself is not
// changed.
func (w Workspace) GuardedPath(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		v, ok := strings.CutPrefix(kv, "PATH=")
		if !ok {
			out = append(out, kv)
			continue
		}
		var keep []string
		for _, dir := range filepath.SplitList(v) {
			if w.pathDirOutside(dir) {
				keep = append(keep, dir)
			}
		}
		out = append(out, "PATH="+strings.Join(keep, string(filepath.ListSeparator)))
	}
	return out
}

// pathDirOutside reports an absolute PATH directory that lies outside the
// workspace lexically and through its symlinks.
func (w Workspace) pathDirOutside(dir string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	root := filepath.Clean(w.Root)
	if _, inside := within(root, dir); inside {
		return false
	}
	real, err := realPath(dir)
	if err != nil {
		return false
	}
	realRoot := w.realRoot
	if realRoot == "" {
		if r, err := realPath(root); err == nil {
			realRoot = r
		} else {
			return false
		}
	}
	_, inside := within(realRoot, real)
	return !inside
}
