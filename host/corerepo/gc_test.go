package corerepo

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/corerepo/corepath"
)

// commitN commits work with agents/default/n.txt = n and returns the commit.
func commitN(t *testing.T, r *Repo, work string, n int) string {
	t.Helper()
	writeFile(t, filepath.Join(work, "agents/default/n.txt"), strconv.Itoa(n))
	_, c, err := r.Commit(work, "commit "+strconv.Itoa(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// A commit collects the copies no one needs: live's and previous's stay,
// a copy a running host marks in use stays until it lets go, the others go
// with their lock files.
func TestCollectTreesKeepsLivePreviousAndInUse(t *testing.T) {
	r, first := initRepo(t)
	if _, err := r.Materialize(first); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	c1 := commitN(t, r, work, 1)
	release, err := corepath.Use(r.StateDir, c1) // a host runs c1
	if err != nil {
		t.Fatal(err)
	}
	c2 := commitN(t, r, work, 2)
	c3 := commitN(t, r, work, 3) // live c3, previous c2: first is garbage, c1 in use
	if exists(TreeDir(r.StateDir, first)) || exists(corepath.UseLock(r.StateDir, first)) {
		t.Error("the first commit's copy (neither live, previous nor in use) was not collected")
	}
	for _, c := range []string{c1, c2, c3} {
		if !exists(filepath.Join(TreeDir(r.StateDir, c), "agents/default/agent.yaml")) {
			t.Errorf("copy of %s collected; it is live, previous or in use", short(c))
		}
	}
	release()
	removed, err := r.CollectTrees()
	if err != nil || len(removed) != 1 || removed[0] != c1 || exists(TreeDir(r.StateDir, c1)) {
		t.Fatalf("after release: removed %v, %v", removed, err)
	}
	// A leftover of a killed collection or materialization goes once stale.
	stale := filepath.Join(TreesDir(r.StateDir), ".tmp-stale")
	writeFile(t, filepath.Join(stale, "x"), "")
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CollectTrees(); err != nil || exists(stale) {
		t.Fatalf("stale temporary left: %v", err)
	}
}

// A reader that marks a copy in use, makes it when it is missing and
// reads it, against a collector running all the while: the reader never
// finds a copy gone or half removed under its mark.
func TestCollectTreesIsSafeAgainstAConcurrentReader(t *testing.T) {
	r, first := initRepo(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	old := commitN(t, r, work, 1)
	commitN(t, r, work, 2)
	commitN(t, r, work, 3) // old is neither live nor previous
	var stop atomic.Bool
	var collected atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if rm, err := r.CollectTrees(); err != nil {
				t.Error(err)
				return
			} else {
				collected.Add(int64(len(rm)))
			}
		}
	})
	for i := 0; i < 300 || collected.Load() < 20; i++ {
		if i > 20000 {
			t.Fatalf("the collector removed the copy only %d times", collected.Load())
		}
		release, err := corepath.Use(r.StateDir, old)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := r.Materialize(old)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if b, err := os.ReadFile(filepath.Join(dir, "agents/default/n.txt")); err != nil || string(b) != "1" {
				t.Fatalf("read %d under the mark: %q %v", i, b, err)
			}
		}
		release()
	}
	stop.Store(true)
	wg.Wait()
}
