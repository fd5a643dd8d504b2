package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Real follows links as the kernel would, dangling ones and ".." in a
// target included, and counts a loop as outside.
func TestWorkspaceReal(t *testing.T) {
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	root := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root + "/secret", root + "/docs", root + "/src/pkg", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"alias":       "secret",
		"docs/link":   "../src",
		"docs/abs":    root + "/secret",
		"out":         outside,
		"dangling":    "secret/new.txt",
		"src/pkg/up":  "../../secret",
		"loop1":       "loop2",
		"loop2":       "loop1",
		"chain":       "docs/link/pkg/up",
		"docs/outrel": "../../outside",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws := Workspace{Root: root}
	for _, tc := range []struct {
		path, rel string
		inside    bool
	}{
		{"plain.txt", "plain.txt", true},
		{"alias/x.txt", "secret/x.txt", true},
		{"docs/link/a.go", "src/a.go", true},
		{"docs/abs/k", "secret/k", true},
		{"dangling", "secret/new.txt", true},
		{"src/pkg/up/k", "secret/k", true},
		{"chain/k", "secret/k", true},
		{"out/x", "", false},
		{"docs/outrel/x", "", false},
		{"loop1/x", "", false},
		{"missing/dir/../x", "missing/x", true},
	} {
		got := ws.Real(filepath.Join(root, tc.path))
		if got.Inside != tc.inside || got.Rel != tc.rel {
			t.Errorf("Real(%s) = %+v, want rel %q inside %v", tc.path, got, tc.rel, tc.inside)
		}
	}
}

// join and isLink are filepath.Join and os.Lstat's symlink bit, without
// their allocations.
func TestJoinAndIsLinkMatchTheLibrary(t *testing.T) {
	base := t.TempDir()
	if err := os.Symlink("nowhere", filepath.Join(base, "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range [][2]string{{"/", "etc"}, {"/etc", "passwd"}, {base, "l"}, {base, "f"}, {base, "missing"}, {"/a/b", "c d"}} {
		p := join(tc[0], tc[1])
		if want := filepath.Join(tc[0], tc[1]); p != want {
			t.Errorf("join(%q, %q) = %q, want %q", tc[0], tc[1], p, want)
		}
		link, err := isLink(p)
		fi, werr := os.Lstat(p)
		if (err == nil) != (werr == nil) || (werr == nil && link != (fi.Mode()&os.ModeSymlink != 0)) {
			t.Errorf("isLink(%q) = %v, %v; os.Lstat %v, %v", p, link, err, fi, werr)
		}
	}
}

// TestRealPathFollowsFortyLinks: a chain of maxSymlinkHops links resolves,
// as the kernel's path walk does (its limit is 40); one more is a loop.
func TestRealPathFollowsFortyLinks(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(dir, "end"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	prev := "end"
	for i := 1; i <= maxSymlinkHops+1; i++ {
		name := fmt.Sprintf("l%d", i)
		if err := os.Symlink(prev, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		prev = name
	}
	last := filepath.Join(dir, fmt.Sprintf("l%d", maxSymlinkHops))
	if got, err := realPath(last); err != nil || got != filepath.Join(dir, "end") {
		t.Errorf("%d links: %q, %v", maxSymlinkHops, got, err)
	}
	if _, err := filepath.EvalSymlinks(last); err != nil {
		t.Errorf("the library refuses %d links: %v", maxSymlinkHops, err)
	}
	if _, err := realPath(filepath.Join(dir, fmt.Sprintf("l%d", maxSymlinkHops+1))); err == nil {
		t.Errorf("%d links resolved", maxSymlinkHops+1)
	}
}

// TestRealOfALiteralWorkspaceThroughALink: a Workspace written as a
// literal (no resolved root kept) whose root is a link places a real path
// under the root it leads to.
func TestRealOfALiteralWorkspaceThroughALink(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.MkdirAll(base+"/ws/src", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base+"/ws", base+"/wslink"); err != nil {
		t.Fatal(err)
	}
	r := (Workspace{Root: base + "/wslink"}).Real(base + "/ws/src/a.go")
	if !r.Inside || r.Rel != "src/a.go" {
		t.Errorf("Real = %+v, want inside at src/a.go", r)
	}
}
