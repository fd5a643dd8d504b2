package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/host/core"
)

// loadCoreMakingMCPDir loads the core at dir; when its slots.mcp names a
// directory that does not exist yet, it makes that directory (inside the
// core only, whatever symlinks lie on the way) and loads again, so that
// `mcp add` into a fresh core just works.
func loadCoreMakingMCPDir(dir string) (*core.Core, error) {
	cr, err := core.Load(dir)
	var le *core.LoadError
	var pe *fs.PathError
	if err == nil || !errors.As(err, &le) || le.Field != "slots.mcp" || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		return cr, err
	}
	root, rerr := filepath.EvalSymlinks(dir)
	if rerr != nil {
		return nil, err
	}
	root, rerr = filepath.Abs(root)
	if rerr != nil {
		return nil, err
	}
	// The nearest ancestor that exists, resolved, must lie in the core:
	// a symlink in agent.yaml's path never makes a directory elsewhere.
	want := filepath.Clean(pe.Path)
	anc := want
	for {
		if _, serr := os.Lstat(anc); serr == nil {
			break
		}
		parent := filepath.Dir(anc)
		if parent == anc {
			return nil, err
		}
		anc = parent
	}
	real, rerr := filepath.EvalSymlinks(anc)
	if rerr != nil || !inside(root, real) {
		return nil, fmt.Errorf("%w (not made: it would lie outside the core directory %s)", err, root)
	}
	rest, rerr := filepath.Rel(anc, want)
	if rerr != nil {
		return nil, err
	}
	if merr := os.MkdirAll(filepath.Join(real, rest), 0o755); merr != nil {
		return nil, fmt.Errorf("%w (and it could not be made: %v)", err, merr)
	}
	return core.Load(dir)
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
