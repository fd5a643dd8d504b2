package pindir

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPinWorkDir is what pinning adds to every terminal call and server start: open
// the root and the directory beneath it (openat2), then close.
func BenchmarkPinWorkDir(b *testing.B) {
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(ws, "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		wd, err := Open(ws, dir)
		if err != nil {
			b.Fatal(err)
		}
		wd.Close()
	}
}
