package corerepo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/host/corerepo/corepath"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TreesDir, TreeDir and CoreDir are corepath's: where the read-only copies
// of commits live.
var (
	TreesDir = corepath.TreesDir
	TreeDir  = corepath.TreeDir
	CoreDir  = corepath.CoreDir
)

// Materialize makes the read-only copy of commit's tree under the state
// directory, unless it is there already, and returns its directory. Files
// are 0444 (0555 when executable), directories 0555: the copy is the host's,
// nothing writes it, and a second commit never reuses it.
func (r *Repo) Materialize(commit string) (string, error) {
	dst := TreeDir(r.StateDir, commit)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	c, err := r.commit(commit)
	if err != nil {
		return "", err
	}
	tree, err := c.Tree()
	if err != nil {
		return "", fmt.Errorf("commit %s: tree: %w", short(commit), err)
	}
	if err := os.MkdirAll(TreesDir(r.StateDir), 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(TreesDir(r.StateDir), ".tmp-")
	if err != nil {
		return "", err
	}
	defer removeReadOnly(tmp)
	if err := writeOut(tree, tmp); err != nil {
		return "", fmt.Errorf("commit %s: %w", short(commit), err)
	}
	if err := sealDirs(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, serr := os.Stat(dst); serr == nil {
			return dst, nil // another host made the same copy first
		}
		return "", err
	}
	return dst, nil
}

// writeOut writes every file of tree below dir. Names are checked even
// though the repository is the host's: a name with a slash or a dot-dot
// would write outside the copy.
func writeOut(tree *object.Tree, dir string) error {
	return tree.Files().ForEach(func(f *object.File) error {
		for _, part := range strings.Split(f.Name, "/") {
			if part == "" || part == "." || part == ".." || strings.ContainsRune(part, 0) {
				return fmt.Errorf("tree entry %q: not a plain path", f.Name)
			}
		}
		perm := fs.FileMode(0o444)
		switch f.Mode {
		case filemode.Executable:
			perm = 0o555
		case filemode.Regular, filemode.Deprecated:
		default:
			return fmt.Errorf("%s: a %s entry; a core holds only directories and regular files", f.Name, f.Mode)
		}
		if f.Size > MaxFileBytes {
			return fmt.Errorf("%s: %d bytes, over the %d-byte limit", f.Name, f.Size, MaxFileBytes)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		rd, err := f.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, rd); err != nil {
			out.Close()
			return err
		}
		if err := out.Chmod(perm); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// sealDirs makes every directory below (and at) root 0555, deepest first.
func sealDirs(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	for i := len(dirs) - 1; err == nil && i >= 0; i-- {
		err = os.Chmod(dirs[i], 0o555)
	}
	return err
}

// removeReadOnly removes a tree whose directories may be read-only.
func removeReadOnly(root string) {
	if _, err := os.Lstat(root); errors.Is(err, os.ErrNotExist) {
		return
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(root)
}

// Checkout writes commit's tree into dir, which must not exist or be
// empty: a work tree for the operator to edit and give to Commit. The
// files are the operator's (0644/0755).
func (r *Repo) Checkout(commit, dir string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty: give a new or empty directory", dir)
	}
	c, err := r.commit(commit)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeOut(tree, dir); err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, fi.Mode().Perm()|0o200)
	})
}
