package corerepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"demiurge.dev/host/corerepo/corepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
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
	if err := os.MkdirAll(TreesDir(r.StateDir), 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(TreesDir(r.StateDir), ".tmp-")
	if err != nil {
		return "", err
	}
	defer removeReadOnly(tmp)
	dirs := []string{tmp}
	if err := r.writeOut(c.TreeHash, tmp, "", &dirs); err != nil {
		return "", fmt.Errorf("commit %s: %w", short(commit), err)
	}
	r.forgetBlobs(c.TreeHash)
	if err := sealDirs(dirs); err != nil {
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

// writeOut writes every file of the tree h below dir (rel is its place
// in the commit, for messages). Names are checked even though the
// repository is the host's: a name with a slash or a dot-dot would write
// outside the copy.
func (r *Repo) writeOut(h plumbing.Hash, dir, rel string, dirs *[]string) error {
	t, err := r.tree(h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		name := path.Join(rel, e.Name)
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsAny(e.Name, "/\x00") {
			return fmt.Errorf("tree entry %q: not a plain path", name)
		}
		if IsGitName(e.Name) {
			return fmt.Errorf("%s: a core holds no .git", name)
		}
		if why := unplainName(e.Name); why != "" {
			return fmt.Errorf("tree entry %q: %s", name, why)
		}
		p := filepath.Join(dir, e.Name)
		perm := fs.FileMode(0o444)
		switch e.Mode {
		case filemode.Dir:
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			if dirs != nil {
				*dirs = append(*dirs, p)
			}
			if err := r.writeOut(e.Hash, p, name, dirs); err != nil {
				return err
			}
			continue
		case filemode.Executable:
			perm = 0o555
		case filemode.Regular, filemode.Deprecated:
		default:
			return fmt.Errorf("%s: a %s entry; a core holds only directories and regular files", name, e.Mode)
		}
		data, err := r.blob(e.Hash)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := writeReadOnly(p, data, perm); err != nil {
			return err
		}
	}
	return nil
}

// writeReadOnly creates p (it must not exist) holding data, mode perm.
func writeReadOnly(p string, data []byte, perm fs.FileMode) error {
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(perm); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sealDirs makes every directory of dirs (parents before children, as
// writeOut lists them) 0555, deepest first: no second walk of the copy.
func sealDirs(dirs []string) error {
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o555); err != nil {
			return err
		}
	}
	return nil
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := r.writeOut(c.TreeHash, dir, "", nil); err != nil {
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
