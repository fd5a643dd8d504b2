package fsops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteCreatesAndReplaces(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()

	res, err := WriteFile(ctx, fx.ws, WriteParams{Path: "new.txt", Content: "hi\n"})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("hi\n"))
	if !res.Created || res.BytesWritten != 3 || res.SHA256 != hex.EncodeToString(sum[:]) || res.Mode != "0644" || res.Path != "new.txt" {
		t.Fatalf("result %+v", res)
	}
	assertFile(t, fx.in("new.txt"), "hi\n", 0o644)

	// Overwrites keep the permission bits, tighter or looser than 0644.
	for _, mode := range []os.FileMode{0o600, 0o755, 0o640} {
		fx.write(t, "kept.sh", "old\n")
		if err := os.Chmod(fx.in("kept.sh"), mode); err != nil {
			t.Fatal(err)
		}
		res, err := WriteFile(ctx, fx.ws, WriteParams{Path: "kept.sh", Content: "new content\n"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Created || res.Mode != fmt.Sprintf("%04o", uint32(mode)) {
			t.Fatalf("mode %o: result %+v", mode, res)
		}
		assertFile(t, fx.in("kept.sh"), "new content\n", mode)
	}

	// Missing parents: refused unless create_dirs.
	_, err = WriteFile(ctx, fx.ws, WriteParams{Path: "a/b/c.txt", Content: "x"})
	wantKind(t, err, ErrNotFound)
	if _, err := WriteFile(ctx, fx.ws, WriteParams{Path: "a/b/c.txt", Content: "x", CreateDirs: true}); err != nil {
		t.Fatal(err)
	}
	assertFile(t, fx.in("a/b/c.txt"), "x", 0o644)
	assertNoStaging(t, fx.root)
}

func TestWriteGrantedPathOutside(t *testing.T) {
	fx := newFixture(t, "outside/granted.txt")
	target := filepath.Join(fx.outside, "granted.txt")
	res, err := WriteFile(context.Background(), fx.ws, WriteParams{Path: target, Content: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != target {
		t.Fatalf("reported path %q", res.Path)
	}
	assertFile(t, target, "ok", 0o644)
	_, err = WriteFile(context.Background(), fx.ws, WriteParams{Path: filepath.Join(fx.outside, "other.txt"), Content: "no"})
	wantKind(t, err, ErrOutsideWorkspace)
}

func TestWriteRefusals(t *testing.T) {
	fx := boundaryFixture(t)
	mustMkdir(t, fx.in("realdir"))
	fx.symlink(t, "realdir", "dirlink")
	tests := []struct {
		name string
		path string
		kind error
	}{
		{"dotenv", ".env", ErrSensitive},
		{"dotenv variant", "config/.env.production", ErrSensitive},
		{"ssh directory", ".ssh/config", ErrSensitive},
		{"key file", "certs/server.pem", ErrSensitive},
		{"final symlink", "alias.txt", ErrSymlink},
		{"symlink to a sensitive file", "harmless.txt", ErrSymlink},
		{"through a symlinked directory", "dirlink/x.txt", ErrSymlink},
		{"through a symlink leading outside", "escape_dir/x.txt", ErrOutsideWorkspace},
		{"dangling escape symlink", "escape_abs", ErrSymlink},
		{"hard link", "hardlink.txt", ErrHardLinked},
		{"fifo", "pipe", ErrNotRegular},
		{"socket", "sock", ErrNotRegular},
		{"directory", "sub", ErrIsDirectory},
		{"workspace root", ".", ErrIsDirectory},
		{"dot-dot", "../outside/new.txt", ErrOutsideWorkspace},
		{"absolute outside", filepath.Join(fx.outside, "new.txt"), ErrOutsideWorkspace},
		{"empty", "", ErrInvalidPath},
	}
	before := snapshot(t, fx.root)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := within(t, 5*time.Second, func(ctx context.Context) (WriteResult, error) {
				return WriteFile(ctx, fx.ws, WriteParams{Path: tc.path, Content: "overwritten"})
			})
			wantKind(t, err, tc.kind)
			// The precheck (before approval) refuses the same way.
			_, err = within(t, 5*time.Second, func(ctx context.Context) (struct{}, error) {
				return struct{}{}, WritePrecheck(ctx, fx.ws, WriteParams{Path: tc.path, Content: "overwritten", CreateDirs: true})
			})
			wantKind(t, err, tc.kind)
		})
	}
	if after := snapshot(t, fx.root); after != before {
		t.Fatalf("a refused write changed the tree:\nbefore %s\nafter  %s", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.outside, "secret.txt")); string(b) != "outside secret\n" {
		t.Fatalf("outside file changed: %q", b)
	}
}

func assertFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != content {
		t.Fatalf("%s = %q, want %q", p, b, content)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != mode {
		t.Fatalf("%s mode %o, want %o", p, fi.Mode().Perm(), mode)
	}
}

// assertNoStaging fails when a staging file was left behind.
func assertNoStaging(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "demiurge-tmp") {
			t.Errorf("staging file left behind: %s", p)
		}
		return nil
	})
}

// snapshot describes every entry of a tree (name, type, size, content of
// small regular files), to show that a refused operation changed nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		sb.WriteString(p + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			sb.WriteString(" " + string(b))
		}
		sb.WriteString("|")
		return nil
	})
	return sb.String()
}

// The precheck passes what the write would do, and changes nothing.
func TestWritePrecheckPassesPossibleWrites(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "exists.txt", "old\n")
	before := snapshot(t, fx.root)
	for _, p := range []WriteParams{
		{Path: "exists.txt", Content: "new"},
		{Path: "new.txt", Content: "new"},
		{Path: "a/b/new.txt", Content: "new", CreateDirs: true},
	} {
		if err := WritePrecheck(context.Background(), fx.ws, p); err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
	}
	if err := WritePrecheck(context.Background(), fx.ws, WriteParams{Path: "a/b/new.txt", Content: "new"}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "create_dirs") {
		t.Fatalf("missing parent without create_dirs: %v", err)
	}
	if after := snapshot(t, fx.root); after != before {
		t.Fatal("the precheck changed the tree")
	}
}

// A rewritten file keeps its permission bits but not setuid, setgid or
// sticky, and the result says which it lost (documented in write_file.md
// and patch.md).
func TestRewriteDropsSetIDBitsAndSaysSo(t *testing.T) {
	ops := map[string]func(ws *Workspace) (string, error){
		"write_file": func(ws *Workspace) (string, error) {
			r, err := WriteFile(context.Background(), ws, WriteParams{Path: "tool", Content: "#!/bin/sh\necho new\n"})
			return r.DroppedBits, err
		},
		"patch": func(ws *Workspace) (string, error) {
			r, err := Patch(context.Background(), ws, PatchParams{Path: "tool", OldString: "old", NewString: "new"})
			return r.DroppedBits, err
		},
	}
	for name, op := range ops {
		for _, tc := range []struct {
			mode    os.FileMode
			dropped string
		}{
			{0o755, ""},
			{0o4755, "setuid"},
			{0o6750, "setuid, setgid"},
		} {
			t.Run(fmt.Sprintf("%s/%o", name, tc.mode), func(t *testing.T) {
				fx := newFixture(t)
				fx.write(t, "tool", "#!/bin/sh\necho old\n")
				if err := syscall.Chmod(fx.in("tool"), uint32(tc.mode)); err != nil {
					t.Fatal(err)
				}
				dropped, err := op(fx.ws)
				if err != nil {
					t.Fatal(err)
				}
				var st syscall.Stat_t
				if err := syscall.Stat(fx.in("tool"), &st); err != nil {
					t.Fatal(err)
				}
				if got := st.Mode & 0o7777; got != uint32(tc.mode)&0o777 {
					t.Fatalf("mode %o, want %o", got, uint32(tc.mode)&0o777)
				}
				if dropped != tc.dropped {
					t.Fatalf("dropped %q, want %q", dropped, tc.dropped)
				}
			})
		}
	}
}
