package terminal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// artifactBuffer is how much of a stream is gathered before a write to the
// artifact file: big writes keep the syscall count low at bulk rates.
const artifactBuffer = 1 << 20

// artifactDir creates <root>/terminal/<spawnID> as a private directory
// (0700, also every directory it had to create) and returns it with its
// path relative to root.
func artifactDir(root, spawnID string) (abs, rel string, err error) {
	if root == "" || !filepath.IsAbs(root) {
		return "", "", fmt.Errorf("artifact root %q is not an absolute directory", root)
	}
	rel = filepath.Join("terminal", spawnID)
	abs = filepath.Join(root, rel)
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", "", fmt.Errorf("create artifact directory: %w", err)
	}
	// MkdirAll leaves existing directories alone, and the umask may have
	// widened nothing but could have narrowed; make the leaf exactly 0700.
	if err := os.Chmod(abs, 0o700); err != nil {
		return "", "", fmt.Errorf("create artifact directory: %w", err)
	}
	return abs, rel, nil
}

// artifact writes one stream to a private file. A failed write is kept as
// the artifact's error and later bytes are dropped, so that the pipe keeps
// draining; the call fails at the end.
type artifact struct {
	path string // absolute
	rel  string // relative to the artifact root
	f    *os.File
	w    *bufio.Writer
	size int64
	err  error
}

// openArtifact creates the file exclusively, without following a symlink,
// readable by the owner only. On failure the artifact carries the error and
// swallows every write.
func openArtifact(dir, rel, name string) *artifact {
	a := &artifact{path: filepath.Join(dir, name), rel: filepath.ToSlash(filepath.Join(rel, name))}
	if dir == "" {
		a.err = errors.New("no artifact directory")
		return a
	}
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		a.err = fmt.Errorf("open artifact %s: %w", a.rel, err)
		return a
	}
	a.f, a.w = f, newBuffered(f)
	return a
}

func (a *artifact) Write(p []byte) (int, error) {
	if a.err != nil {
		return len(p), nil
	}
	if _, err := a.w.Write(p); err != nil {
		a.err = fmt.Errorf("write artifact %s: %w", a.rel, err)
		return len(p), nil
	}
	a.size += int64(len(p))
	return len(p), nil
}

// close flushes, syncs and closes the file; the first error of the
// artifact's life is returned.
func (a *artifact) close() error {
	if a.f == nil {
		return a.err
	}
	if a.err == nil {
		if err := a.w.Flush(); err != nil {
			a.err = fmt.Errorf("flush artifact %s: %w", a.rel, err)
		}
	}
	if a.err == nil {
		if err := a.f.Sync(); err != nil {
			a.err = fmt.Errorf("sync artifact %s: %w", a.rel, err)
		}
	}
	if err := a.f.Close(); err != nil && a.err == nil {
		a.err = fmt.Errorf("close artifact %s: %w", a.rel, err)
	}
	a.w.Reset(nil) // drops what a failed write left buffered
	artifactWriters.Put(a.w)
	a.f, a.w = nil, nil
	return a.err
}

// artifactWriters are reused for the same reason as the read buffers.
var artifactWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, artifactBuffer) }}

func newBuffered(f *os.File) *bufio.Writer {
	w := artifactWriters.Get().(*bufio.Writer)
	w.Reset(f)
	return w
}
