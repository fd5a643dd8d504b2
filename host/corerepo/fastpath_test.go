package corerepo

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The paths ChangedPaths lists are git's own, for edits, additions,
// removals, a file turned directory and back, and a mode change.
func TestChangedPathsAreGits(t *testing.T) {
	r, first := initRepo(t)
	work := filepath.Join(t.TempDir(), "w")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "agents/default/skills/a/SKILL.md"), "a")
	writeFile(t, filepath.Join(work, "agents/default/skills/b/SKILL.md"), "b")
	writeFile(t, filepath.Join(work, "agents/default/notes"), "a file")
	_, second, err := r.Commit(work, "second", nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "agents/default/skills/a/SKILL.md"), "a2")          // edit
	if err := os.RemoveAll(filepath.Join(work, "agents/default/skills/b")); err != nil { // removed dir
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(work, "agents/default/notes")); err != nil { // file -> dir
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "agents/default/notes/one.md"), "1")
	writeFile(t, filepath.Join(work, "agents/reviewer/agent.yaml"), "name: reviewer\n") // new core
	if err := os.Chmod(filepath.Join(work, "agents/default/pipelines.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, third, err := r.Commit(work, "third", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{first, second}, {second, third}, {third, second}, {first, third}} {
		want := realGit(t, r, "diff-tree", "-r", "--name-only", "--no-renames", c[0], c[1])
		for _, fresh := range []bool{false, true} { // with the recent trees in memory, and without
			rr := r
			if fresh {
				if rr, err = Open(r.StateDir); err != nil {
					t.Fatal(err)
				}
			}
			got, err := rr.ChangedPaths(c[0], c[1])
			if err != nil || strings.Join(got, "\n") != want {
				t.Fatalf("ChangedPaths(%s, %s) fresh=%v:\n%s\n%v\ngit says:\n%s", short(c[0]), short(c[1]), fresh, strings.Join(got, "\n"), err, want)
			}
		}
	}
}

// The read-only copy written from the trees in memory is the copy written
// from the object store: the same files, bytes and modes.
func TestCopyFromMemoryIsTheStoresCopy(t *testing.T) {
	r, first := initRepo(t)
	work := filepath.Join(t.TempDir(), "w")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "agents/default/skills/a/SKILL.md"), "skill a")
	writeExec(t, filepath.Join(work, "agents/default/tools/t/run.sh"), "#!/bin/sh\necho hi\n")
	_, commit, err := r.Commit(work, "second", nil)
	if err != nil {
		t.Fatal(err)
	}
	fromMemory := listTree(t, TreeDir(r.StateDir, commit))
	removeReadOnly(TreeDir(r.StateDir, commit))
	fresh, err := Open(r.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Materialize(commit); err != nil {
		t.Fatal(err)
	}
	fromStore := listTree(t, TreeDir(r.StateDir, commit))
	if fromMemory != fromStore || !strings.Contains(fromStore, "skill a") || !strings.Contains(fromStore, "echo hi") {
		t.Fatalf("copy from memory:\n%s\ncopy from the store:\n%s", fromMemory, fromStore)
	}
}

// A commit whose tree holds what a core never does (a name that climbs
// out, a .git, a symlink, a submodule) is refused by Materialize, which
// leaves no copy: such a tree can only come from a writer other than the
// host.
func TestMaterializeRefusesAHostileTree(t *testing.T) {
	for _, c := range []struct {
		name string
		mode filemode.FileMode
		want string
	}{
		{"..", filemode.Regular, "not a plain path"},
		{"a/b", filemode.Regular, "not a plain path"},
		{".git", filemode.Dir, "no .git"},
		{".GIT.", filemode.Regular, "no .git"},
		{"link", filemode.Symlink, "a core holds only directories and regular files"},
		{"sub", filemode.Submodule, "a core holds only directories and regular files"},
		{"x\nwidens authority: no", filemode.Regular, "a core's names are plain text"},
		{"esc\x1b]52;c;Zm9v\a", filemode.Regular, "a core's names are plain text"},
		{"bidi\u202e", filemode.Dir, "a core's names are plain text"},
		{"\xff", filemode.Regular, "a core's names are plain text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := initRepo(t)
			blob := storeObject(t, r, plumbing.BlobObject, []byte("x"))
			inner := blob
			if c.mode == filemode.Dir {
				inner = storeTree(t, r, object.TreeEntry{Name: "config", Mode: filemode.Regular, Hash: blob})
			}
			core := storeTree(t, r,
				object.TreeEntry{Name: c.name, Mode: c.mode, Hash: inner},
				object.TreeEntry{Name: "agent.yaml", Mode: filemode.Regular, Hash: blob})
			agents := storeTree(t, r, object.TreeEntry{Name: "default", Mode: filemode.Dir, Hash: core})
			root := storeTree(t, r, object.TreeEntry{Name: "agents", Mode: filemode.Dir, Hash: agents})
			commit, err := r.writeCommit(root, "", "hostile")
			if err != nil {
				t.Fatal(err)
			}
			if dir, err := r.Materialize(commit); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Materialize of a tree with %q (%s): %s, %v", c.name, c.mode, dir, err)
			}
			if _, err := os.Lstat(TreeDir(r.StateDir, commit)); !os.IsNotExist(err) {
				t.Fatalf("a copy was left: %v", err)
			}
			if err := r.Checkout(commit, filepath.Join(t.TempDir(), "co")); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Checkout of a tree with %q: %v", c.name, err)
			}
		})
	}
}

// A .git below the top of the tree is refused at commit, naming it in
// the operator's directory: the walk that reads the files refuses it,
// before anything is stored (Materialize refusing it is a second guard).
func TestCommitRefusesAGitBelowTheTop(t *testing.T) {
	for _, c := range []struct{ p, named string }{
		{"agents/default/.git/config", "agents/default/.git"},
		{"agents/default/skills/.Git/x", "agents/default/skills/.Git"},
		{"agents/default/.git. /x", "agents/default/.git. "},
		{"agents/default/.git", "agents/default/.git"},
	} {
		p := c.p
		r, first := initRepo(t)
		work := filepath.Join(t.TempDir(), "w")
		if err := r.Checkout(first, work); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(work, p), "x")
		if _, _, err := r.Commit(work, "git inside", nil); err == nil || !strings.Contains(err.Error(), work+": "+c.named+": a core holds no .git") {
			t.Fatalf("commit with %s: %v", p, err)
		}
		if live, _ := r.Live(); live != first {
			t.Fatal("live moved")
		}
	}
}

func storeObject(t *testing.T, r *Repo, typ plumbing.ObjectType, data []byte) plumbing.Hash {
	t.Helper()
	o := r.git.Storer.NewEncodedObject()
	o.SetType(typ)
	w, _ := o.Writer()
	w.Write(data)
	w.Close()
	h, err := r.git.Storer.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// storeTree stores a tree of the entries as given, in git's order, with
// no check of names or modes.
func storeTree(t *testing.T, r *Repo, entries ...object.TreeEntry) plumbing.Hash {
	t.Helper()
	sort.Slice(entries, func(i, j int) bool { return sortName(entries[i]) < sortName(entries[j]) })
	o := r.git.Storer.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(o); err != nil {
		t.Fatal(err)
	}
	h, err := r.git.Storer.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// listTree is every path below d with its mode and contents.
func listTree(t *testing.T, d string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s", strings.TrimPrefix(p, d), fi.Mode())
		if !e.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
