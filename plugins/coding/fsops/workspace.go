package fsops

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Grant lets one exact absolute path outside the workspace be opened; the
// host adds it after the operator approved that path for this call.
type Grant struct {
	Path string `json:"path"`
}

// Workspace is the directory the file tools are confined to.
type Workspace struct {
	root     *os.Root
	rootPath string // absolute, symlinks resolved: what /proc/self/fd reports
	given    string // absolute and cleaned as the caller wrote it
	grants   map[string]bool
}

// OpenWorkspace opens root as the workspace boundary. Grants must be
// absolute paths; a relative grant is an operator error and fails.
func OpenWorkspace(root string, grants []Grant) (*Workspace, error) {
	given, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", root, err)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: open as root: %w", root, err)
	}
	w := &Workspace{root: r, rootPath: real, given: given, grants: map[string]bool{}}
	for _, g := range grants {
		if !filepath.IsAbs(g.Path) || strings.ContainsRune(g.Path, 0) {
			r.Close()
			return nil, fmt.Errorf("workspace grant %q: must be an absolute path", g.Path)
		}
		w.grants[filepath.Clean(g.Path)] = true
	}
	return w, nil
}

// Close releases the workspace root descriptor.
func (w *Workspace) Close() error { return w.root.Close() }

// Root is the workspace directory with symlinks resolved.
func (w *Workspace) Root() string { return w.rootPath }

// target is a resolved request: either a path inside the root (rel) or a
// granted absolute path outside it.
type target struct {
	display string // as reported back: slash-separated relative path, or the granted absolute path
	rel     string // relative to the root ("." for the root itself); empty for grants
	abs     string // the absolute path it must really be, for the real-path check
	grant   bool
}

// resolve turns a model-supplied path into a target without touching the
// file system. Containment by symlinks is enforced later by os.Root and
// the real-path check on the opened descriptor.
func (w *Workspace) resolve(p string) (target, error) {
	if p == "" {
		return target{}, refuse(p, ErrInvalidPath, "path is empty; give a path relative to the workspace")
	}
	if strings.ContainsRune(p, 0) {
		return target{}, refuse(p, ErrInvalidPath, "path contains a NUL byte")
	}
	if filepath.IsAbs(p) {
		c := filepath.Clean(p)
		for _, base := range []string{w.rootPath, w.given} {
			if c == base {
				return w.inRoot("."), nil
			}
			if rest, ok := strings.CutPrefix(c, base+string(filepath.Separator)); ok {
				return w.inRoot(rest), nil
			}
		}
		if w.grants[c] {
			return target{display: c, abs: c, grant: true}, nil
		}
		return target{}, refuse(p, ErrOutsideWorkspace, "absolute path outside the workspace; use a path relative to the workspace")
	}
	c := filepath.Clean(p)
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		for _, base := range []string{w.rootPath, w.given} {
			if abs := filepath.Join(base, c); w.grants[abs] {
				return target{display: abs, abs: abs, grant: true}, nil
			}
		}
		return target{}, refuse(p, ErrOutsideWorkspace, "path escapes the workspace through '..'; use a path inside the workspace")
	}
	return w.inRoot(c), nil
}

func (w *Workspace) inRoot(rel string) target {
	return target{display: filepath.ToSlash(rel), rel: rel, abs: filepath.Join(w.rootPath, rel)}
}

// relToRoot expresses a real absolute path relative to the root when it
// lies inside it, so that a workspace living under a sensitive-looking
// directory does not make every file sensitive.
func (w *Workspace) relToRoot(real string) (string, bool) {
	if real == w.rootPath {
		return ".", true
	}
	rest, ok := strings.CutPrefix(real, w.rootPath+string(filepath.Separator))
	return rest, ok
}
