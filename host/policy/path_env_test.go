package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAllowedCommandsFindNoProgramInTheWorkspace: the PATH of a command
// the guard allowed keeps only absolute directories outside the
// workspace, as written and as their links lead; everything else the
// command's environment holds is kept as it was.
func TestAllowedCommandsFindNoProgramInTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	outside := filepath.Join(dir, "tools", "bin")
	for _, d := range []string{filepath.Join(ws, "bin"), filepath.Join(ws, "node_modules", ".bin"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link outside that leads into the workspace, and one whose missing
	// directory would be made inside it.
	if err := os.Symlink(filepath.Join(ws, "bin"), filepath.Join(dir, "linkbin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, filepath.Join(dir, "linkws")); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	entries := []string{
		"", ".", "bin", "./bin", "../tools/bin",
		ws, filepath.Join(ws, "bin"), filepath.Join(ws, "node_modules", ".bin"), ws + "/sub/../bin",
		filepath.Join(dir, "linkbin"), filepath.Join(dir, "linkws", "later"),
		outside, "/usr/bin", "/bin",
	}
	env := []string{"HOME=/h", "PATH=" + strings.Join(entries, ":"), "TERM=xterm"}
	got := w.GuardedPath(env)
	want := []string{"HOME=/h", "PATH=" + strings.Join([]string{outside, "/usr/bin", "/bin"}, ":"), "TERM=xterm"}
	if !slices.Equal(got, want) {
		t.Fatalf("GuardedPath:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(env[1], ":.:") {
		t.Fatal("GuardedPath changed its argument")
	}
	// The workspace's own link to itself: a workspace given as a link.
	lw, err := NewWorkspace(filepath.Join(dir, "linkws"))
	if err != nil {
		t.Fatal(err)
	}
	if got := lw.GuardedPath([]string{"PATH=" + filepath.Join(ws, "bin") + ":/usr/bin"}); !slices.Equal(got, []string{"PATH=/usr/bin"}) {
		t.Fatalf("workspace through a link: %q", got)
	}
	// The same, written as a literal (no resolved root kept): the root's
	// links are resolved when the PATH is judged.
	if got := (Workspace{Root: filepath.Join(dir, "linkws")}).GuardedPath([]string{"PATH=" + filepath.Join(ws, "bin") + ":/usr/bin"}); !slices.Equal(got, []string{"PATH=/usr/bin"}) {
		t.Fatalf("a literal workspace through a link: %q", got)
	}
}
