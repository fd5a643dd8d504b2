package shellguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// settleAtOnce lets the caches keep what they read from files changed a
// moment ago, for tests that change files and look for the change; the
// tests of the settling rule itself leave it alone.
func settleAtOnce(t *testing.T) {
	t.Helper()
	old := settledAge
	settledAge = -time.Hour
	t.Cleanup(func() { settledAge = old })
}

// waitSettled sleeps until files changed now have settled ctimes.
func waitSettled() { time.Sleep(settledAge + 100*time.Millisecond) }

// putBackTimes sets path's atime and mtime to what fi said: the mtime
// an attacker restores after a change. ctime still moves.
func putBackTimes(t *testing.T, path string, fi os.FileInfo) {
	t.Helper()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

func lstat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// treeWorld is a settled workspace with a tree of harmless files, and a
// check of `grep -r foo TREE` in it.
func treeWorld(t *testing.T) (ws, tree string, grep func(step string, want Decision)) {
	t.Helper()
	ws = t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	tree = filepath.Join(ws, "tree")
	for _, p := range []string{"a/notes", "a/b/readme", "c/list0"} {
		mkdir(t, filepath.Dir(filepath.Join(tree, p)))
		write(t, filepath.Join(tree, p), "x\n")
	}
	waitSettled()
	grep = func(step string, want Decision) {
		t.Helper()
		v := Check("grep -r foo tree", Options{WorkspaceRoot: ws, Files: OSFiles{}})
		if v.Decision != want {
			t.Fatalf("%s: grep -r = %v %q, want %v", step, v.Decision, v.Reasons, want)
		}
	}
	return ws, tree, grep
}

func listingKept(name string) bool {
	dirCache.Lock()
	defer dirCache.Unlock()
	_, ok := dirCache.m[name]
	return ok
}

// TestTreeListingCacheSeesChanges: a tree walk's kept listings are
// never used once their directory changed, however the change hides:
// a credential file added, an entry renamed to a credential name with the
// directory's mtime put back (same size, same mtime: only ctime moves), a
// directory swapped by rename for one holding a credential, a directory
// replaced by a symlink leading out of the workspace.
func TestTreeListingCacheSeesChanges(t *testing.T) {
	ws, tree, grep := treeWorld(t)
	grep("clean", Allow)
	if !listingKept(filepath.Join(tree, "a", "b")) {
		t.Fatal("a settled directory's listing was not kept: the rest of this test would prove nothing")
	}
	grep("clean, again (kept listings)", Allow)

	// Added: a credential file in a nested directory.
	write(t, filepath.Join(tree, "a", "b", "id_rsa"), "key\n")
	grep("id_rsa added", Prompt)
	os.Remove(filepath.Join(tree, "a", "b", "id_rsa"))
	waitSettled()
	grep("id_rsa removed", Allow)

	// Renamed, with the directory's mtime put back: same entry count,
	// same size, same mtime, same inode. Only its ctime moved.
	dir := filepath.Join(tree, "c")
	before := lstat(t, dir)
	if err := os.Rename(filepath.Join(dir, "list0"), filepath.Join(dir, ".env")); err != nil {
		t.Fatal(err)
	}
	putBackTimes(t, dir, before)
	after := lstat(t, dir)
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the rename changed the directory's size or mtime (%d→%d, %v→%v): the test needs only ctime to move", before.Size(), after.Size(), before.ModTime(), after.ModTime())
	}
	grep("renamed to .env, mtime put back", Prompt)
	if err := os.Rename(filepath.Join(dir, ".env"), filepath.Join(dir, "list0")); err != nil {
		t.Fatal(err)
	}
	waitSettled()
	grep("renamed back", Allow)

	// Swapped: a directory of the same shape, holding a credential,
	// renamed over the walked one.
	other := filepath.Join(ws, "other")
	mkdir(t, filepath.Join(other, "b"))
	write(t, filepath.Join(other, "notes"), "x\n")
	write(t, filepath.Join(other, "b", "credentials.json"), "{}\n")
	waitSettled()
	if err := os.Rename(filepath.Join(tree, "a"), filepath.Join(ws, "old-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, filepath.Join(tree, "a")); err != nil {
		t.Fatal(err)
	}
	grep("a swapped for a directory holding credentials.json", Prompt)

	// Replaced by a symlink out of the workspace.
	if err := os.RemoveAll(filepath.Join(tree, "a")); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(tree, "a")); err != nil {
		t.Fatal(err)
	}
	v := Check("grep -R foo tree", Options{WorkspaceRoot: ws, Files: OSFiles{}})
	if v.Decision != Prompt || !strings.Contains(strings.Join(v.Reasons, "\n"), "out of the workspace") {
		t.Fatalf("a replaced by a symlink out of the workspace: %v %q", v.Decision, v.Reasons)
	}
}

// TestFreshListingIsNotKept: a directory changed less than settledAge ago
// is listed afresh every time (a change in the same clock tick could keep
// its ctime); once settled, its listing is kept.
func TestFreshListingIsNotKept(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	dir := filepath.Join(ws, "fresh")
	mkdir(t, dir)
	write(t, filepath.Join(dir, "x"), "x\n")
	Check("grep -r foo fresh", Options{WorkspaceRoot: ws, Files: OSFiles{}})
	if listingKept(dir) {
		t.Fatal("the listing of a directory changed a moment ago was kept")
	}
	waitSettled()
	Check("grep -r foo fresh", Options{WorkspaceRoot: ws, Files: OSFiles{}})
	if !listingKept(dir) {
		t.Fatal("the listing of a settled directory was not kept")
	}
}

// TestRepoCacheSeesRewriteWithTimesPutBack: a repository's kept review is
// dropped when its config is rewritten in place to the same size with its
// mtime put back (only ctime moves), and a review that read a config
// changed a moment ago is not kept at all.
func TestRepoCacheSeesRewriteWithTimesPutBack(t *testing.T) {
	evil := "[core]\n\tpager = /bin/evil\n"
	plain := "[user]\n\tname = " + strings.Repeat("a", len(evil)-len("[user]\n\tname = \n")) + "\n"
	if len(evil) != len(plain) {
		t.Fatal("the two configs must have the same size")
	}
	ws := repoWorld(t, gitDirFiles("ws/.git", plain))
	cfg := filepath.Join(ws, ".git", "config")
	check := func(step string, want Decision) {
		t.Helper()
		v := Check("git log", Options{WorkspaceRoot: ws, Cwd: ws, Files: OSFiles{}})
		if v.Decision != want {
			t.Fatalf("%s: git log = %v %q, want %v", step, v.Decision, v.Reasons, want)
		}
	}
	repoKept := func() bool {
		repoCache.Lock()
		defer repoCache.Unlock()
		_, ok := repoCache.m[ws]
		return ok
	}
	check("fresh", Allow)
	if repoKept() {
		t.Fatal("a review that read files changed a moment ago was kept")
	}
	waitSettled()
	check("settled", Allow)
	if !repoKept() {
		t.Fatal("a settled review was not kept: the rest of this test would prove nothing")
	}
	before := lstat(t, cfg)
	if err := os.WriteFile(cfg, []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	putBackTimes(t, cfg, before)
	if after := lstat(t, cfg); after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the rewrite changed size or mtime: the test needs only ctime to move")
	}
	check("config rewritten with size and mtime kept", Prompt)
}
