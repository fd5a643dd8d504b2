package corerepo

import (
	"errors"
	"fmt"
	"os"

	"demiurge.dev/host/corerepo/corepath"
)

// Gate checks the tree of a candidate commit before any ref moves: tree is
// its read-only copy (the directory holding agents/). An error stops the
// commit.
type Gate func(tree string) error

// ErrNothingToCommit is returned when dir's tree is live's tree.
var ErrNothingToCommit = errors.New("nothing to commit: the tree is live's tree")

// Commit records dir (a tree holding agents/<core_id>/, as Checkout wrote
// it) as a commit whose parent is live, runs gate on it, and then moves
// previous to the old live and live to the new commit, compare-and-swap on
// the values read first: a ref moved by someone else in between moves
// nothing (*MovedError). A failing gate moves nothing either.
func (r *Repo) Commit(dir, msg string, gate Gate) (old, commit string, err error) {
	if msg == "" {
		return "", "", errors.New("a commit needs a message (-m)")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("%s is not a directory", dir)
	}
	old, err = r.Live()
	if err != nil {
		return "", "", err
	}
	prev, _, err := r.Ref(RefPrevious)
	if err != nil {
		return "", "", err
	}
	fsys := os.DirFS(dir)
	if err := CheckLayout(fsys); err != nil {
		return "", "", fmt.Errorf("%s: %w", dir, err)
	}
	w := keeping(r)
	tree, err := w.writeTree(fsys, ".")
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", dir, err)
	}
	r.remember(tree, w)
	parent, err := r.commit(old)
	if err != nil {
		return "", "", err
	}
	if parent.TreeHash == tree {
		return "", "", ErrNothingToCommit
	}
	commit, err = r.writeCommit(tree, old, msg)
	if err != nil {
		return "", "", err
	}
	// Marked in use while the gate reads it, so that a collection by
	// another process does not take it away under the gate.
	release, err := corepath.Use(r.StateDir, commit)
	if err != nil {
		return "", "", err
	}
	defer release()
	copyDir, err := r.Materialize(commit)
	if err != nil {
		return "", "", err
	}
	if gate != nil {
		if err := gate(copyDir); err != nil {
			removeReadOnly(copyDir) // no one runs a refused commit
			return "", "", err
		}
	}
	if err := r.Move(Update{Ref: RefPrevious, Old: prev, New: old}, Update{Ref: RefLive, Old: old, New: commit}); err != nil {
		removeReadOnly(copyDir)
		return "", "", err
	}
	// The copy of the previous previous is garbage now, unless a running
	// host still uses it; a failed collection is tried again next time.
	_, _ = r.CollectTrees()
	return old, commit, nil
}
