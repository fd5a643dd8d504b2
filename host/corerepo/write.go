package corerepo

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"demiurge.dev/host/termtext"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Bounds of a tree written from a directory: a core is declarations and
// small scripts, and the bounds keep a wrong DIR (a home directory) from
// being copied whole into the repository.
const (
	MaxFiles     = 4096
	MaxFileBytes = 4 << 20
	MaxTreeBytes = 64 << 20
)

// treeWriter writes the blobs and trees of a directory into the object
// store.
type treeWriter struct {
	r            *Repo
	files, bytes int
	// hashOnly computes the tree's id and stores nothing (a check that a
	// directory is still the tree of a commit).
	hashOnly bool
	// trees and blobs, when not nil, collect what was written, for
	// Repo.remember.
	trees map[plumbing.Hash]*object.Tree
	blobs map[plumbing.Hash][]byte
}

// keeping is a treeWriter that collects its objects for Repo.remember.
func keeping(r *Repo) *treeWriter {
	return &treeWriter{r: r, trees: map[plumbing.Hash]*object.Tree{}, blobs: map[plumbing.Hash][]byte{}}
}

// writeTree stores the tree of dir within fsys (fs.FS paths) and returns
// its hash. Only directories and regular files are taken; a symlink, a
// device or a file over the bounds is an error naming it, so that what is
// committed is exactly what the operator sees. A top-level .git is left
// out (a checkout the operator put under git of their own).
func (w *treeWriter) writeTree(fsys fs.FS, dir string) (plumbing.Hash, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var t object.Tree
	for _, e := range ents {
		name := e.Name()
		p := path.Join(dir, name)
		if dir == "." && name == ".git" {
			continue
		}
		if IsGitName(name) {
			return plumbing.ZeroHash, fmt.Errorf("%s: a core holds no .git", p)
		}
		if why := unplainName(name); why != "" {
			return plumbing.ZeroHash, fmt.Errorf("%q: %s", p, why)
		}
		switch {
		case e.IsDir():
			h, err := w.writeTree(fsys, p)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		case e.Type().IsRegular():
			fi, err := e.Info()
			if err != nil {
				return plumbing.ZeroHash, err
			}
			h, err := w.writeBlob(fsys, p, fi.Size())
			if err != nil {
				return plumbing.ZeroHash, err
			}
			mode := filemode.Regular
			if fi.Mode().Perm()&0o111 != 0 {
				mode = filemode.Executable
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: mode, Hash: h})
		default:
			return plumbing.ZeroHash, fmt.Errorf("%s: is a %s; a core holds only directories and regular files", p, typeName(e.Type()))
		}
	}
	// git orders a directory's entries as if directory names ended in "/".
	sort.Slice(t.Entries, func(i, j int) bool { return sortName(t.Entries[i]) < sortName(t.Entries[j]) })
	o := w.r.git.Storer.NewEncodedObject()
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	if w.trees != nil {
		w.trees[o.Hash()] = &t
	}
	return w.store(o)
}

// IsGitName is a name git or a checkout of the tree would take for its
// own directory: .git in any case, with any trailing dots and spaces
// (which some file systems drop). Below the top such an entry is refused:
// git would run or refuse it, and an evolver could hide a repository there.
func IsGitName(name string) bool {
	return strings.EqualFold(strings.TrimRight(name, ". "), ".git")
}

// unplainName says what makes name unfit for a core ("" when nothing):
// a name that is not UTF-8 or holds a control character (a newline, ESC)
// or a bidi control would reach the operator's terminal in `core review`,
// `core diff` and the evolve_core answer, where it could forge or hide
// lines (a changed path "x\nwidens authority: no", ESC[8m concealing what
// follows) or show one name as another.
func unplainName(name string) string {
	if !utf8.ValidString(name) {
		return "not UTF-8; a core's names are plain text"
	}
	for _, r := range name {
		if r == '\n' || r == '\t' || termtext.Replaced(r) {
			return fmt.Sprintf("holds %U, a character a terminal does not show as it is (a control, format or invisible one); a core's names are plain text", r)
		}
	}
	return ""
}

func sortName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

func (w *treeWriter) writeBlob(fsys fs.FS, p string, size int64) (plumbing.Hash, error) {
	w.files++
	if w.files > MaxFiles {
		return plumbing.ZeroHash, fmt.Errorf("%s: more than %d files; a core is declarations and small scripts", p, MaxFiles)
	}
	if size > MaxFileBytes {
		return plumbing.ZeroHash, fmt.Errorf("%s: %d bytes, over the %d-byte limit of one file in a core", p, size, MaxFileBytes)
	}
	w.bytes += int(size)
	if w.bytes > MaxTreeBytes {
		return plumbing.ZeroHash, fmt.Errorf("%s: the tree passes %d bytes; a core is declarations and small scripts", p, MaxTreeBytes)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: %w", p, err)
	}
	if len(data) > MaxFileBytes {
		return plumbing.ZeroHash, fmt.Errorf("%s: grew past the %d-byte limit while read", p, MaxFileBytes)
	}
	o := w.r.git.Storer.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	ow, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := ow.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := ow.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	if w.blobs != nil {
		w.blobs[o.Hash()] = data
	}
	return w.store(o)
}

// store writes o unless the store has it already: most files of a new
// tree are the old tree's, and writing a loose object (zlib, a file) is
// what a commit of a large core spends its time on.
func (w *treeWriter) store(o plumbing.EncodedObject) (plumbing.Hash, error) {
	h := o.Hash()
	if w.hashOnly || w.r.hasLoose(h) || w.r.git.Storer.HasEncodedObject(h) == nil {
		return h, nil
	}
	return w.r.git.Storer.SetEncodedObject(o)
}

// hasLoose is one stat of the object's loose file: the store's own check
// walks and lstats the path's every directory first (go-billy's chroot),
// which for the 200 unchanged files of a commit was a tenth of a review.
// A loose object is written to a temporary file and renamed, so one that
// is there is whole. Not found here, the store is asked (packs).
func (r *Repo) hasLoose(h plumbing.Hash) bool {
	if r.StateDir == "" {
		return false
	}
	s := h.String()
	_, err := os.Lstat(filepath.Join(r.GitDir(), "objects", s[:2], s[2:]))
	return err == nil
}

// writeCommit stores a commit of tree with the given parent ("" for none).
func (r *Repo) writeCommit(tree plumbing.Hash, parent, msg string) (string, error) {
	sig := signature()
	c := &object.Commit{Author: sig, Committer: sig, Message: strings.TrimRight(msg, "\n") + "\n", TreeHash: tree}
	if parent != "" {
		c.ParentHashes = []plumbing.Hash{plumbing.NewHash(parent)}
	}
	o := r.git.Storer.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return "", err
	}
	h, err := r.git.Storer.SetEncodedObject(o)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}
