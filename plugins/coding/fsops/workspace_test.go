package fsops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// boundaryFixture builds the tree every boundary test reads from.
func boundaryFixture(t *testing.T) *fixture {
	fx := newFixture(t, "outside/granted.txt", "outside/granted-alias.txt", "/dev/null")
	fx.write(t, "notes.txt", "hello\n")
	fx.write(t, "sub/inner.txt", "inner\n")
	fx.write(t, ".ssh/id_rsa", "PRIVATE KEY\n")
	fx.write(t, ".env", "TOKEN=1\n")
	if err := os.WriteFile(filepath.Join(fx.outside, "secret.txt"), []byte("outside secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fx.outside, "granted.txt"), []byte("granted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.symlink(t, "../outside/secret.txt", "escape_rel")
	fx.symlink(t, filepath.Join(fx.outside, "secret.txt"), "escape_abs")
	fx.symlink(t, "../outside", "escape_dir")
	fx.symlink(t, "/dev/null", "devnull")
	fx.symlink(t, ".ssh/id_rsa", "harmless.txt")
	fx.symlink(t, ".env", ".env.local")
	fx.symlink(t, "notes.txt", "alias.txt")
	fx.symlink(t, "sub", "sublink")
	fx.write(t, "linked.txt", "twice\n")
	if err := os.Link(fx.in("linked.txt"), fx.in("hardlink.txt")); err != nil {
		t.Fatal(err)
	}
	fx.fifo(t, "pipe")
	fx.socket(t, "sock")
	fx.symlink(t, "hardlink.txt", "to-hardlink")
	fx.symlink(t, "pipe", "to-pipe")
	if err := os.Symlink("secret.txt", filepath.Join(fx.outside, "granted-alias.txt")); err != nil {
		t.Fatal(err)
	}
	return fx
}

func TestReadBoundary(t *testing.T) {
	fx := boundaryFixture(t)
	tests := []struct {
		name string
		path string
		kind error  // nil: must succeed
		want string // content when it succeeds
	}{
		{"relative", "notes.txt", nil, "hello\n"},
		{"nested", "sub/inner.txt", nil, "inner\n"},
		{"dot segments that stay inside", "sub/../notes.txt", nil, "hello\n"},
		{"absolute inside is converted", fx.in("notes.txt"), nil, "hello\n"},
		{"symlink inside the root", "alias.txt", nil, "hello\n"},
		{"through a symlinked directory inside", "sublink/inner.txt", nil, "inner\n"},
		{"sensitive path asked for by name", ".env", nil, "TOKEN=1\n"},
		{"sensitive to sensitive symlink", ".env.local", nil, "TOKEN=1\n"},
		{"granted file outside", filepath.Join(fx.outside, "granted.txt"), nil, "granted\n"},
		{"granted file by relative path", "../outside/granted.txt", nil, "granted\n"},
		{"dot-dot escape", "../outside/secret.txt", ErrOutsideWorkspace, ""},
		{"dot-dot in the middle", "sub/../../outside/secret.txt", ErrOutsideWorkspace, ""},
		{"absolute outside", filepath.Join(fx.outside, "secret.txt"), ErrOutsideWorkspace, ""},
		{"absolute system file", "/etc/passwd", ErrOutsideWorkspace, ""},
		{"relative symlink escape", "escape_rel", ErrOutsideWorkspace, ""},
		{"absolute symlink escape", "escape_abs", ErrOutsideWorkspace, ""},
		{"escape through a symlinked directory", "escape_dir/secret.txt", ErrOutsideWorkspace, ""},
		{"device through a symlink", "devnull", ErrOutsideWorkspace, ""},
		{"granted device", "/dev/null", ErrNotRegular, ""},
		{"symlink to a sensitive file", "harmless.txt", ErrSensitive, ""},
		{"hard link", "hardlink.txt", ErrHardLinked, ""},
		// A final symlink inside the workspace is followed, and its target
		// is checked as the path itself would be (doc.go).
		{"symlink to a hard link", "to-hardlink", ErrHardLinked, ""},
		{"symlink to a fifo", "to-pipe", ErrNotRegular, ""},
		{"symlink to a directory", "sublink", ErrIsDirectory, ""},
		// A grant is for one exact file: a symlink there is not followed.
		{"granted path that is a symlink", filepath.Join(fx.outside, "granted-alias.txt"), ErrSymlink, ""},
		{"hard link original", "linked.txt", ErrHardLinked, ""},
		{"fifo", "pipe", ErrNotRegular, ""},
		{"socket", "sock", ErrNotRegular, ""},
		{"directory", "sub", ErrIsDirectory, ""},
		{"workspace root", ".", ErrIsDirectory, ""},
		{"missing", "nope.txt", ErrNotFound, ""},
		{"file used as directory", "notes.txt/x", ErrNotFound, ""},
		{"empty", "", ErrInvalidPath, ""},
		{"nul byte", "notes\x00.txt", ErrInvalidPath, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := within(t, 5*time.Second, func(ctx context.Context) (ReadResult, error) {
				return ReadFile(ctx, fx.ws, ReadParams{Path: tc.path})
			})
			wantKind(t, err, tc.kind)
			if tc.kind == nil && res.Content != tc.want {
				t.Fatalf("content = %q, want %q", res.Content, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "outside secret") {
				t.Fatalf("error leaks content: %v", err)
			}
		})
	}
}

func TestReadDeviceInsideRoot(t *testing.T) {
	fx := newFixture(t)
	// A character device node needs privilege; where it cannot be made the
	// granted /dev/null case above covers the same check.
	if err := unix.Mknod(fx.in("null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("mknod: %v", err)
	}
	_, err := within(t, 5*time.Second, func(ctx context.Context) (ReadResult, error) {
		return ReadFile(ctx, fx.ws, ReadParams{Path: "null"})
	})
	wantKind(t, err, ErrNotRegular)
}

func TestOpenWorkspaceRejectsRelativeGrant(t *testing.T) {
	if _, err := OpenWorkspace(t.TempDir(), []Grant{{Path: "relative.txt"}}); err == nil {
		t.Fatal("relative grant accepted")
	}
	if _, err := OpenWorkspace(filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Fatal("missing workspace directory accepted")
	}
}

func TestWorkspaceThroughSymlinkedRoot(t *testing.T) {
	base := t.TempDir()
	mustMkdir(t, filepath.Join(base, "real"))
	if err := os.WriteFile(filepath.Join(base, "real", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(filepath.Join(base, "link"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	// Both spellings of the root are accepted in absolute paths.
	for _, p := range []string{filepath.Join(base, "link", "a.txt"), filepath.Join(base, "real", "a.txt"), "a.txt"} {
		res, err := ReadFile(context.Background(), ws, ReadParams{Path: p})
		if err != nil || res.Content != "a\n" {
			t.Fatalf("%s: %q, %v", p, res.Content, err)
		}
		if res.Path != "a.txt" {
			t.Fatalf("%s: reported path %q, want a.txt", p, res.Path)
		}
	}
	// The pinned parent's real path is compared with the resolved root.
	if _, err := WriteFile(context.Background(), ws, WriteParams{Path: filepath.Join(base, "link", "b.txt"), Content: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Patch(context.Background(), ws, PatchParams{Path: "b.txt", OldString: "b", NewString: "c"}); err != nil {
		t.Fatal(err)
	}
}
