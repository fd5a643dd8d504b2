package corerepo

import (
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// recent holds the trees and file contents of the last tree this Repo
// wrote (a review's snapshot, a commit). The read-only copy and the changed
// paths of that tree are made next, and reading each object back from the
// loose object store (a path walk, an open and an inflate per object) was
// most of a review's time. The objects are immutable by their hash, so a
// copy held here is the object in the store.
type recent struct {
	mu    sync.Mutex
	root  plumbing.Hash
	trees map[plumbing.Hash]*object.Tree
	blobs map[plumbing.Hash][]byte
}

// remember makes w's objects the recent ones (the previous go).
func (r *Repo) remember(root plumbing.Hash, w *treeWriter) {
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	r.mem.root, r.mem.trees, r.mem.blobs = root, w.trees, w.blobs
}

// forgetBlobs drops the file contents of the recent tree once its copy is
// written: a long-lived host keeps no core's files in memory.
func (r *Repo) forgetBlobs(root plumbing.Hash) {
	r.mem.mu.Lock()
	defer r.mem.mu.Unlock()
	if r.mem.root == root {
		r.mem.blobs = nil
	}
}

// tree reads a tree object, from the recent ones first.
func (r *Repo) tree(h plumbing.Hash) (*object.Tree, error) {
	r.mem.mu.Lock()
	t := r.mem.trees[h]
	r.mem.mu.Unlock()
	if t != nil {
		return t, nil
	}
	t, err := object.GetTree(r.git.Storer, h)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", short(h.String()), err)
	}
	return t, nil
}

// blob reads a file's contents, from the recent ones first, refusing one
// over MaxFileBytes before reading it.
func (r *Repo) blob(h plumbing.Hash) ([]byte, error) {
	r.mem.mu.Lock()
	data, ok := r.mem.blobs[h]
	r.mem.mu.Unlock()
	if ok {
		return data, nil
	}
	o, err := r.git.Storer.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", short(h.String()), err)
	}
	if o.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes, over the %d-byte limit", o.Size(), MaxFileBytes)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data, err = io.ReadAll(io.LimitReader(rd, MaxFileBytes+1))
	if err == nil && len(data) > MaxFileBytes {
		err = fmt.Errorf("over the %d-byte limit", MaxFileBytes)
	}
	return data, err
}
