package fsops

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The sweep removes exactly the staged files a dead writer left: our
// naming pattern, a plain single-link file, unchanged for staleAge, and
// not locked by a live writer.
func TestSweepRemovesOnlyDeadStagedFiles(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "f.txt", "content\n")
	dead := ".f.txt.0123456789abcdef.demiurge-tmp"
	fx.write(t, dead, "left by a killed plugin")
	fx.write(t, ".demiurge-fedcba9876543210.tmp", "long-name form, also dead")
	live := ".f.txt.aaaaaaaaaaaaaaaa.demiurge-tmp"
	fx.write(t, live, "a live writer holds its lock")
	lf, err := os.Open(fx.in(live))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	kept := map[string]func(){
		".f.txt.notrandom.demiurge-tmp":       func() { fx.write(t, ".f.txt.notrandom.demiurge-tmp", "not our pattern") },
		"f.txt.0123456789abcdef.demiurge-tmp": func() { fx.write(t, "f.txt.0123456789abcdef.demiurge-tmp", "no leading dot") },
		".f.txt.0123456789abcdef.demiurge-tmp.bak": func() {
			fx.write(t, ".f.txt.0123456789abcdef.demiurge-tmp.bak", "suffix after ours")
		},
		".g.1111111111111111.demiurge-tmp": func() { fx.symlink(t, "f.txt", ".g.1111111111111111.demiurge-tmp") },
		".h.2222222222222222.demiurge-tmp": func() { mustMkdir(t, fx.in(".h.2222222222222222.demiurge-tmp")) },
		".i.3333333333333333.demiurge-tmp": func() {
			fx.write(t, "i-target", "hard-linked")
			if err := os.Link(fx.in("i-target"), fx.in(".i.3333333333333333.demiurge-tmp")); err != nil {
				t.Fatal(err)
			}
		},
	}
	for _, make := range kept {
		make()
	}
	pp, err := fx.ws.pinParent("f.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	defer pp.Close()
	if got := pp.sweepStaged(time.Now()); len(got) != 0 {
		t.Fatalf("files changed just now were swept: %v", got)
	}
	got := pp.sweepStaged(time.Now().Add(staleAge + time.Second))
	want := map[string]bool{dead: true, ".demiurge-fedcba9876543210.tmp": true}
	if len(got) != len(want) || !want[got[0]] || !want[got[1]] {
		t.Fatalf("swept %v, want %v", got, want)
	}
	for name := range want {
		if _, err := os.Lstat(fx.in(name)); !os.IsNotExist(err) {
			t.Fatalf("%s survived the sweep: %v", name, err)
		}
	}
	for _, name := range append([]string{live, "f.txt", "i-target"}, keys(kept)...) {
		if _, err := os.Lstat(fx.in(name)); err != nil {
			t.Fatalf("%s was removed: %v", name, err)
		}
	}
}

// patch and write_file sweep the directory they write in.
func TestWritesSweepTheirDirectory(t *testing.T) {
	defer func(old time.Duration) { staleAge = old }(staleAge)
	staleAge = 0
	ops := map[string]func(ws *Workspace) error{
		"patch": func(ws *Workspace) error {
			_, err := Patch(context.Background(), ws, PatchParams{Path: "d/f.txt", OldString: "old", NewString: "new"})
			return err
		},
		"write_file": func(ws *Workspace) error {
			_, err := WriteFile(context.Background(), ws, WriteParams{Path: "d/other.txt", Content: "x"})
			return err
		},
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			fx := newFixture(t)
			fx.write(t, "d/f.txt", "old\n")
			fx.write(t, "d/.f.txt.0123456789abcdef.demiurge-tmp", "left by a killed plugin")
			fx.write(t, ".f.txt.0123456789abcdef.demiurge-tmp", "another directory: not this write's")
			sweptRoots.Store(fx.ws.rootPath, true) // the once-per-process tree sweep is TestFirstWriteSweepsTheTree's
			if err := op(fx.ws); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(fx.in("d/.f.txt.0123456789abcdef.demiurge-tmp")); !os.IsNotExist(err) {
				t.Fatalf("the dead staged file survived: %v", err)
			}
			if _, err := os.Lstat(fx.in(".f.txt.0123456789abcdef.demiurge-tmp")); err != nil {
				t.Fatalf("a staged file of another directory was swept: %v", err)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// The first write of a process in a workspace sweeps the whole tree once,
// not following symlinks and skipping dependency directories; within its
// bounds.
func TestFirstWriteSweepsTheTree(t *testing.T) {
	fx := newFixture(t)
	dead := ".f.txt.0123456789abcdef.demiurge-tmp"
	fx.write(t, "a/b/c/"+dead, "left by a killed plugin")
	fx.write(t, "node_modules/x/"+dead, "in a skipped directory")
	fx.write(t, "live/"+dead, "held by a live writer")
	lf, err := os.Open(fx.in("live/" + dead))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, filepath.Join(fx.outside, "linked"))
	os.WriteFile(filepath.Join(fx.outside, "linked", dead), []byte("outside, behind a symlink"), 0o644)
	fx.symlink(t, filepath.Join(fx.outside, "linked"), "via-link")

	later := time.Now().Add(staleAge + time.Second)
	if got := fx.ws.sweepTree(later, 1, later.Add(time.Minute)); len(got) != 0 {
		t.Fatalf("a sweep bounded to the root directory removed %v", got)
	}
	got := fx.ws.sweepTree(later, treeSweepDirs, later.Add(time.Minute))
	if want := []string{"a/b/c/" + dead}; !slices.Equal(got, want) {
		t.Fatalf("swept %v, want %v", got, want)
	}
	for _, p := range []string{fx.in("node_modules/x/" + dead), fx.in("live/" + dead), filepath.Join(fx.outside, "linked", dead)} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("%s was removed: %v", p, err)
		}
	}

	// Wired into the first write of this process in the workspace.
	defer func(old time.Duration) { staleAge = old }(staleAge)
	staleAge = 0
	fx.write(t, "d/e/"+dead, "another")
	sweptRoots.Delete(fx.ws.rootPath)
	if _, err := WriteFile(context.Background(), fx.ws, WriteParams{Path: "top.txt", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(fx.in("d/e/" + dead)); !os.IsNotExist(err) {
		t.Fatalf("the first write did not sweep the tree: %v", err)
	}
	fx.write(t, "d/e/"+dead, "once per process")
	if _, err := WriteFile(context.Background(), fx.ws, WriteParams{Path: "top.txt", Content: "y"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(fx.in("d/e/" + dead)); err != nil {
		t.Fatalf("a second write swept the tree again: %v", err)
	}
}

// A directory is swept at most once per staleAge: a dead file is removed by
// the first write after it has been dead that long, not by every write.
func TestSweepOfADirectoryIsRateLimited(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "f.txt", "x")
	pp, err := fx.ws.pinParent("f.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	defer pp.Close()
	t0 := time.Now().Add(staleAge + time.Second) // every file here counts as dead
	pp.sweepStaged(t0)
	dead := ".f.txt.0123456789abcdef.demiurge-tmp"
	fx.write(t, dead, "dead")
	if got := pp.sweepStaged(t0.Add(time.Second)); len(got) != 0 {
		t.Fatalf("swept again within staleAge: %v", got)
	}
	if got := pp.sweepStaged(t0.Add(staleAge + 2*time.Second)); len(got) != 1 {
		t.Fatalf("after staleAge the sweep removed %v, want the dead file", got)
	}
}
