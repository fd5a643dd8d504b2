package core

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

var slotKeys = []string{"tools", "mcp", "skills"}

// slots decodes slots.tools, slots.mcp and slots.skills into absolute
// roots ("" when absent). Discovering what lies under them is not the
// loader's job.
func (d *decoder) slots(n *yaml.Node, field string) (toolsRoot, mcpRoot, skillsRoot string, err error) {
	entries, err := d.mapping(n, field)
	if err != nil {
		return "", "", "", err
	}
	for _, e := range entries {
		switch e.name {
		case "tools":
			toolsRoot, err = d.slotRoot(e.val, e.field)
		case "mcp":
			mcpRoot, err = d.slotRoot(e.val, e.field)
		case "skills":
			skillsRoot, err = d.slotRoot(e.val, e.field)
		default:
			err = d.errorf(e.key, e.field, "%s", unknownMsg("slot", e.name, "valid slots", slotKeys))
		}
		if err != nil {
			return "", "", "", err
		}
	}
	return toolsRoot, mcpRoot, skillsRoot, nil
}

// slotRoot resolves a slot root, which must be an existing directory inside
// the core: the core's tools and MCP manifests travel with the core, and a
// root outside it would let a core pull in code it does not contain. The
// check is made on the symlink-resolved path, which is the one returned.
func (d *decoder) slotRoot(n *yaml.Node, field string) (string, error) {
	v, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	if d.dir == "" {
		return "", d.errorf(n, field, "the embedded default core cannot declare slots")
	}
	abs := filepath.IsAbs(v)
	p := filepath.Clean(v)
	if !abs {
		p = filepath.Join(d.dir, v)
		if !within(d.dir, p) {
			return "", d.errorf(n, field, "%q leaves the core directory %s through ..; a slot root must lie inside the core", clip(v), d.dir)
		}
	}
	real, err := d.existingDir(n, field, v, p)
	if err != nil {
		return "", err
	}
	if !within(d.dir, real) {
		if abs {
			return "", d.errorf(n, field, "%q is outside the core directory %s; give a path inside the core, relative to it", clip(v), d.dir)
		}
		return "", d.errorf(n, field, "%q resolves through a symlink to %s, outside the core directory %s; a slot root must lie inside the core", clip(v), real, d.dir)
	}
	return real, nil
}

// workspace resolves the core's default workspace, relative to the core
// directory. Unlike slot roots it may lie anywhere: it names the files the
// agent works on, not code the core brings.
func (d *decoder) workspace(n *yaml.Node, field string) (string, error) {
	v, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	if d.dir == "" {
		return "", d.errorf(n, field, "the embedded default core cannot declare a workspace; it uses the current directory")
	}
	p := v
	if !filepath.IsAbs(v) {
		p = filepath.Join(d.dir, v)
	}
	return d.existingDir(n, field, v, p)
}

// existingDir checks that p (written v in the file) is a directory and
// returns its symlink-resolved absolute path.
func (d *decoder) existingDir(n *yaml.Node, field, v, p string) (string, error) {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", d.wrapf(n, field, err, "directory %q (%s) does not exist; create it or remove the key", clip(v), clip(p))
	case err != nil:
		return "", d.wrapf(n, field, err, "cannot read directory %q: %v", clip(v), reason(err))
	case !fi.IsDir():
		return "", d.errorf(n, field, "%q (%s) is not a directory", clip(v), clip(p))
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", d.wrapf(n, field, err, "cannot resolve %q: %v", clip(v), reason(err))
	}
	return real, nil
}

func (d *decoder) wrapf(n *yaml.Node, field string, err error, format string, args ...any) *LoadError {
	e := d.errorf(n, field, format, args...)
	e.Err = err
	return e
}

// reason is err without the path a *fs.PathError repeats, which the
// message already quotes (clipped).
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// within reports whether p is base or lies below it; both are clean
// absolute paths.
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
