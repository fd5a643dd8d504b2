package fsops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWriteFile measures one write_file (stage, fsync, exchange,
// directory fsync, and the sweep of its directory) in an empty directory
// and in one of 10,000 files, where the sweep lists every entry.
func BenchmarkWriteFile(b *testing.B) {
	for _, entries := range []int{0, 10000} {
		b.Run(fmt.Sprintf("dir_of_%d", entries), func(b *testing.B) {
			root := b.TempDir()
			for i := range entries {
				if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%05d.txt", i)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			ws, err := OpenWorkspace(root, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			sweptRoots.Store(ws.rootPath, true) // the once-per-process tree sweep is not per write
			for b.Loop() {
				if _, err := WriteFile(context.Background(), ws, WriteParams{Path: "target.txt", Content: "content\n"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSweepDir is one listing sweep alone, in a directory of 10,000
// files (what a write pays at most once per staleAge in that directory).
func BenchmarkSweepDir(b *testing.B) {
	fx := &fixture{root: b.TempDir()}
	for i := range 10000 {
		os.WriteFile(filepath.Join(fx.root, fmt.Sprintf("f%05d.txt", i)), nil, 0o644)
	}
	ws, err := OpenWorkspace(fx.root, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	pp, err := ws.pinParent("x.txt", false)
	if err != nil {
		b.Fatal(err)
	}
	defer pp.Close()
	for b.Loop() {
		sweepDir(pp.fd, time.Now(), nil)
	}
}
