package corerepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Snapshot records dir (a tree holding agents/<core_id>/) as a commit whose
// parent is parent, and moves no ref: an evolution run's review commits
// its work tree this way and points refs/demiurge/runs/<id> at it.
func (r *Repo) Snapshot(dir, parent, msg string) (commit, tree string, err error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("%s is not a directory", dir)
	}
	fsys := os.DirFS(dir)
	if err := CheckLayout(fsys); err != nil {
		return "", "", fmt.Errorf("%s: %w", dir, err)
	}
	w := keeping(r)
	h, err := w.writeTree(fsys, ".")
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", dir, err)
	}
	r.remember(h, w)
	commit, err = r.writeCommit(h, parent, msg)
	return commit, h.String(), err
}

// DirTree is the tree id dir would be committed as; it stores nothing.
func (r *Repo) DirTree(dir string) (string, error) {
	fsys := os.DirFS(dir)
	if err := CheckLayout(fsys); err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	w := &treeWriter{r: r, hashOnly: true}
	h, err := w.writeTree(fsys, ".")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	return h.String(), nil
}

// TreeOf is the tree id of a commit.
func (r *Repo) TreeOf(commit string) (string, error) {
	c, err := r.commit(commit)
	if err != nil {
		return "", err
	}
	return c.TreeHash.String(), nil
}

// DeleteRef removes ref if it is still old, under git's lock file as Move
// does; a ref that someone else moved is left alone (*MovedError).
func (r *Repo) DeleteRef(ref, old string) error {
	if err := plumbing.ReferenceName(ref).Validate(); err != nil || !strings.HasPrefix(ref, "refs/demiurge/") {
		return fmt.Errorf("ref %q: not a valid ref name", ref)
	}
	p := r.lockPath(ref)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s: %w (%s exists; remove it if no git or demiurge process is running)", ref, ErrLocked, p)
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", ref, err)
	}
	defer func() { f.Close(); os.Remove(p) }()
	have, _, err := r.Ref(ref)
	if err != nil {
		return err
	}
	if have != old {
		return &MovedError{Ref: ref, Want: old, Have: have}
	}
	if err := os.Remove(filepath.Join(r.GitDir(), filepath.FromSlash(ref))); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("delete %s: %w", ref, err)
	}
	return nil
}
