package fileid

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAnIDSeesEveryChange: a rewrite of the same size (mtime and ctime),
// a chmod (mode, ctime), a rename over it (inode) each give another ID;
// an untouched file keeps its ID, taken from the descriptor or the path.
func TestAnIDSeesEveryChange(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := func() ID {
		t.Helper()
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		a, err := Of(f)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := FromInfo(fi)
		if !ok || !a.Equal(b) {
			t.Fatalf("fd %+v, path %+v", a, b)
		}
		return a
	}
	first := id()
	if !first.IsRegular() || first.UID != uint32(os.Getuid()) || first.Size != 3 || first.Mode&0o777 != 0o600 {
		t.Fatalf("%+v", first)
	}
	if !id().Equal(first) {
		t.Fatal("an untouched file changed its ID")
	}
	for _, c := range []struct {
		name   string
		change func() error
	}{
		{"rewrite", func() error { return os.WriteFile(p, []byte("two"), 0o600) }},
		{"chmod", func() error { return os.Chmod(p, 0o644) }},
		{"times put back", func() error {
			fi, _ := os.Stat(p)
			if err := os.WriteFile(p, []byte("thr"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}},
		{"rename over", func() error {
			q := filepath.Join(dir, "g")
			if err := os.WriteFile(q, []byte("thr"), 0o644); err != nil {
				return err
			}
			return os.Rename(q, p)
		}},
	} {
		before := id()
		time.Sleep(20 * time.Millisecond) // past a kernel tick
		if err := c.change(); err != nil {
			t.Fatal(err)
		}
		if id().Equal(before) {
			t.Errorf("%s: the ID did not change", c.name)
		}
	}
}
