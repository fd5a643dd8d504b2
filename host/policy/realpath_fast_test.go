package policy

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNoSymlinksAgreesWithTheWalk: for plain paths, links at every
// position (to directories, files and a FIFO), dangling links, loops,
// missing components, paths below a file and a FIFO, realPath (with its
// one-syscall shortcut) answers what the lstat walk answers, and the
// shortcut is taken only where no link is met.
func TestNoSymlinksAgreesWithTheWalk(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"ws/src/pkg", "ws/secret", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"ws/alias": "secret", "ws/out": base + "/outside", "ws/src/pkg/up": "../../secret",
		"ws/dangling": "secret/new.txt", "ws/loop1": "ws/loop2", "ws/loop2": "ws/loop1", "ws/src/last": "../secret",
		"ws/filelink": "src/pkg/a.go", "ws/fifolink": "fifo", "ws/src/pkg/outfile": base + "/outside/o.txt",
	} {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"ws/src/pkg/a.go", "ws/secret/s.txt", "outside/o.txt"} {
		if err := os.WriteFile(filepath.Join(base, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(base, "ws/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel   string
		plain bool
	}{
		{"ws", true}, {"ws/src/pkg/a.go", true}, {"ws/src/pkg", true}, {"ws/fifo", true},
		{"ws/alias", false}, {"ws/alias/x", false}, {"ws/out/x", false}, {"ws/src/pkg/up/k", false},
		{"ws/dangling", false}, {"ws/loop1/x", false}, {"ws/src/last", false},
		// ENOENT: a missing component met before any link (a new file's
		// path), kept as written by the walk too — but not after a link,
		// nor a dangling link itself.
		{"ws/missing", true}, {"ws/missing/x", true}, {"ws/src/pkg/new.go", true},
		{"ws/alias/new.txt", false}, {"ws/out/missing/x", false}, {"ws/dangling/x", false},
		// The shortcut's ENOTDIR: a file's path, and a path below a file
		// (nothing can be there; the walk keeps it as written too) — but
		// never a link to a file, last or before a file.
		{"ws/src/pkg/a.go/x", true}, {"ws/src/pkg/a.go/x/y", true},
		{"ws/filelink", false}, {"ws/filelink/x", false}, {"ws/fifolink", false},
		{"ws/src/pkg/outfile", false}, {"ws/src/pkg/outfile/x", false},
		{"ws/alias/s.txt", false}, {"ws/alias/s.txt/x", false},
	} {
		p := filepath.Join(base, tc.rel)
		if got := noSymlinks(p); got != tc.plain {
			t.Errorf("noSymlinks(%s) = %v, want %v", tc.rel, got, tc.plain)
		}
		got, gerr := realPath(p)
		want, werr := walkRealPath(p)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Errorf("realPath(%s) = %q, %v; the walk says %q, %v", tc.rel, got, gerr, want, werr)
		}
	}
	if noSymlinks("relative/path") || noSymlinks(base+"/ws/src/../src") {
		t.Error("a relative or unclean path took the shortcut")
	}
}

// TestSwappedAncestorIsFollowed: a path judged inside the workspace is
// judged again after each swap an agent could make between two calls —
// an ancestor directory renamed away and replaced by a symlink out of the
// workspace, the file itself replaced by a symlink to a secret outside,
// the workspace's parent swapped — and each time Real follows the new
// link (the shortcut sees it and falls back to the walk).
func TestSwappedAncestorIsFollowed(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root + "/a/b", outside + "/b"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(root, "a/b/f.txt")
	// Every link below leads to a file that exists, so that the kernel
	// would open it through the link.
	for _, f := range []string{file, outside + "/b/f.txt", outside + "/secret"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := Workspace{Root: root}
	inside := func(step string, want bool) {
		t.Helper()
		if got := ws.Real(file); got.Inside != want {
			t.Fatalf("%s: Real(a/b/f.txt) = %+v, want inside %v", step, got, want)
		}
	}
	inside("plain", true)
	// The ancestor a/ swapped for a link to outside/.
	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(base, "a.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	inside("a/ swapped for a link out", false)
	// Put back, then the file itself replaced by a link out.
	os.Remove(filepath.Join(root, "a"))
	if err := os.Rename(filepath.Join(base, "a.old"), filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	inside("put back", true)
	os.Remove(file)
	if err := os.Symlink(filepath.Join(outside, "secret"), file); err != nil {
		t.Fatal(err)
	}
	inside("f.txt replaced by a link out", false)
	// A deeper ancestor: b/ replaced by a link to outside/b.
	os.Remove(file)
	if err := os.RemoveAll(filepath.Join(root, "a/b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside+"/b", filepath.Join(root, "a/b")); err != nil {
		t.Fatal(err)
	}
	inside("a/b/ replaced by a link out", false)
}

// BenchmarkRealPath compares the shortcut with the walk on a path of a
// workspace checkout's usual depth, alternating in one run.
func BenchmarkRealPath(b *testing.B) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	dir := filepath.Join(base, "ws/internal/pkg/sub")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "file.go")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		fn   func(string) (string, error)
	}{{"walk", walkRealPath}, {"shortcut", realPath}, {"walk-again", walkRealPath}, {"shortcut-again", realPath}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if got, err := c.fn(p); err != nil || got != p {
					b.Fatal(got, err)
				}
			}
		})
	}
}
