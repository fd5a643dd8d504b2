package sdk

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenReadsWhatTheHostResolved: Open reads the host-resolved path of a
// path subject, whatever the plugin's working directory holds under the
// same name; a symlink out of the workspace, an ungranted outside path, an
// undeclared argument and a FIFO are refused.
func TestOpenReadsWhatTheHostResolved(t *testing.T) {
	base := t.TempDir()
	ws, elsewhere := filepath.Join(base, "ws"), filepath.Join(base, "elsewhere")
	for _, d := range []string{ws, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "passwd"), "the workspace's\n")
	write(filepath.Join(elsewhere, "passwd"), "decoy\n")
	write(filepath.Join(base, "outside"), "outside\n")
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(elsewhere) // where the host was started, say

	c := &Context{Workspace: ws, Paths: map[string]string{
		"path": filepath.Join(ws, "passwd"), "link": filepath.Join(ws, "link"), "fifo": filepath.Join(ws, "fifo"),
		"out": filepath.Join(base, "outside"), "granted": filepath.Join(base, "outside"),
	}}
	f, err := c.Open("path")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "the workspace's\n" {
		t.Errorf("Open(path) read %q, want the workspace's passwd", b)
	}
	for arg, want := range map[string]string{
		"link":  "escapes", // os.Root: path escapes from parent
		"out":   "granted no access",
		"fifo":  "not a regular file",
		"other": "no resolved path",
	} {
		if f, err := c.Open(arg); err == nil || !strings.Contains(err.Error(), want) {
			if f != nil {
				f.Close()
			}
			t.Errorf("Open(%s) = %v, want an error containing %q", arg, err, want)
		}
	}
	c.Grants = []Grant{{Path: filepath.Join(base, "outside")}}
	f, err = c.Open("granted")
	if err != nil {
		t.Fatalf("a granted outside path: %v", err)
	}
	b, _ = io.ReadAll(f)
	f.Close()
	if string(b) != "outside\n" {
		t.Errorf("Open(granted) read %q", b)
	}
	if p, err := c.Path("path"); err != nil || p != filepath.Join(ws, "passwd") {
		t.Errorf("Path(path) = %q, %v", p, err)
	}
}
