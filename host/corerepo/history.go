package corerepo

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Entry is one commit of the log.
type Entry struct {
	Commit  string
	Author  string
	When    time.Time
	Subject string
}

// Log lists up to n commits from rev back along first parents.
func (r *Repo) Log(rev string, n int) ([]Entry, error) {
	h, err := r.Resolve(rev)
	if err != nil {
		return nil, err
	}
	c, err := r.commit(h)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for c != nil && len(out) < n {
		subject, _, _ := strings.Cut(c.Message, "\n")
		out = append(out, Entry{Commit: c.Hash.String(), Author: c.Author.Name, When: c.Author.When, Subject: subject})
		if c.NumParents() == 0 {
			break
		}
		if c, err = c.Parent(0); err != nil {
			return out, fmt.Errorf("commit %s: parent: %w", short(out[len(out)-1].Commit), err)
		}
	}
	return out, nil
}

// Diff writes the unified diff from commit a to commit b.
func (r *Repo) Diff(a, b string, w io.Writer) error {
	ca, err := r.commit(a)
	if err != nil {
		return err
	}
	cb, err := r.commit(b)
	if err != nil {
		return err
	}
	p, err := ca.Patch(cb)
	if err != nil {
		return fmt.Errorf("diff %s %s: %w", short(a), short(b), err)
	}
	return p.Encode(w)
}

// ChangedPaths lists the paths that differ between commits a and b (in
// content or mode), sorted. Only subtrees whose ids differ are read: a
// review of one edited skill among 200 reads a handful of trees, where
// go-git's tree diff read every subtree of both commits. No rename
// detection: a rename is two changed paths (the old and the new).
func (r *Repo) ChangedPaths(a, b string) ([]string, error) {
	ca, err := r.commit(a)
	if err != nil {
		return nil, err
	}
	cb, err := r.commit(b)
	if err != nil {
		return nil, err
	}
	var out []string
	if err := r.diffTrees(ca.TreeHash, cb.TreeHash, "", &out); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// diffTrees appends to out the file paths below prefix that differ
// between trees a and b; a zero hash is a tree that is not there.
func (r *Repo) diffTrees(a, b plumbing.Hash, prefix string, out *[]string) error {
	if a == b {
		return nil
	}
	ea, err := r.entries(a)
	if err != nil {
		return err
	}
	eb, err := r.entries(b)
	if err != nil {
		return err
	}
	for name, x := range ea {
		y, ok := eb[name]
		if !ok {
			y = object.TreeEntry{Mode: filemode.Empty}
		}
		if err := r.diffEntry(x, y, path.Join(prefix, name), out); err != nil {
			return err
		}
	}
	for name, y := range eb {
		if _, ok := ea[name]; !ok {
			if err := r.diffEntry(object.TreeEntry{Mode: filemode.Empty}, y, path.Join(prefix, name), out); err != nil {
				return err
			}
		}
	}
	return nil
}

// diffEntry compares one name of both trees: a directory on either side
// is descended (against nothing when the other side is a file or absent),
// a file on either side is one changed path when its id or mode differs.
func (r *Repo) diffEntry(x, y object.TreeEntry, p string, out *[]string) error {
	if x.Mode == y.Mode && x.Hash == y.Hash {
		return nil
	}
	var dx, dy plumbing.Hash
	if x.Mode == filemode.Dir {
		dx = x.Hash
	}
	if y.Mode == filemode.Dir {
		dy = y.Hash
	}
	if dx != dy {
		if err := r.diffTrees(dx, dy, p, out); err != nil {
			return err
		}
	}
	if (x.Mode != filemode.Dir && x.Mode != filemode.Empty) || (y.Mode != filemode.Dir && y.Mode != filemode.Empty) {
		*out = append(*out, p)
	}
	return nil
}

// entries is a tree's entries by name; the zero hash is the empty tree.
func (r *Repo) entries(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	m := map[string]object.TreeEntry{}
	if h.IsZero() {
		return m, nil
	}
	t, err := r.tree(h)
	if err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		m[e.Name] = e
	}
	return m, nil
}
