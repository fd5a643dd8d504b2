package sdk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path is the host-resolved path of the path subject arg (declared with
// ReadsPath or WritesPath): absolute and cleaned, a relative argument taken
// from the workspace root. It is the path the host checked, approved and
// audited; open it, never the argument as the model gave it.
func (c *Context) Path(arg string) (string, error) {
	p, ok := c.Paths[arg]
	if !ok || !filepath.IsAbs(p) {
		return "", fmt.Errorf("the host sent no resolved path for argument %q: declare it with sdk.ReadsPath or sdk.WritesPath (hosts of protocol minor 3 and later send one)", arg)
	}
	return p, nil
}

// Root opens the workspace as an os.Root: paths under it cannot leave it,
// by .. or by a symlink. The caller closes it.
func (c *Context) Root() (*os.Root, error) {
	if c.Workspace == "" {
		return nil, fmt.Errorf("the host sent no workspace")
	}
	return os.OpenRoot(c.Workspace)
}

// Open opens the path subject arg for reading, as the host resolved it: a
// path in the workspace through an os.Root on it (a symlink that leads
// out is refused), one outside only when the host granted that exact path
// for this call. A FIFO or device is refused without blocking.
func (c *Context) Open(arg string) (*os.File, error) {
	p, err := c.Path(arg)
	if err != nil {
		return nil, err
	}
	var f *os.File
	if rel, inside := c.relative(p); inside {
		root, err := c.Root()
		if err != nil {
			return nil, err
		}
		defer root.Close()
		if f, err = root.OpenFile(rel, os.O_RDONLY|openNonBlock, 0); err != nil {
			return nil, err
		}
	} else {
		if !c.granted(p) {
			return nil, fmt.Errorf("%s is outside the workspace and the host granted no access to it", p)
		}
		if f, err = os.OpenFile(p, os.O_RDONLY|openNonBlock, 0); err != nil {
			return nil, err
		}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if m := st.Mode(); !m.IsRegular() && !m.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%v)", p, m.Type())
	}
	return f, nil
}

// relative is p relative to the workspace, when p is in it.
func (c *Context) relative(p string) (string, bool) {
	if c.Workspace == "" {
		return "", false
	}
	rel, err := filepath.Rel(filepath.Clean(c.Workspace), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

func (c *Context) granted(p string) bool {
	for _, g := range c.Grants {
		if filepath.Clean(g.Path) == p {
			return true
		}
	}
	return false
}
