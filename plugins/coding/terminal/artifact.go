package terminal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
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

// artifactBuffers bounds what a stream may have on its way to disk: the
// drain fills one buffer while the writer goroutine writes the others, so
// reading the pipe and writing the file overlap, and memory stays bounded.
const artifactBuffers = 4

// artifact writes one stream to a private file. A failed write is kept as
// the artifact's error and later bytes are dropped, so that the pipe keeps
// draining; the call fails at the end.
type artifact struct {
	path string // absolute
	rel  string // relative to the artifact root
	f    *os.File
	size int64
	// limit is the most bytes the file keeps (the call's output cap);
	// dropped counts what came past it, which the drain still read.
	limit   int64
	dropped int64

	cur    []byte        // the buffer being filled
	nbuf   int           // buffers taken from the pool
	full   chan []byte   // to the writer goroutine
	free   chan []byte   // back from it
	done   chan struct{} // closed when the writer goroutine has ended
	werr   error         // the writer goroutine's first error; read after done
	err    error         // the drain side's first error
	closed bool
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
	a.start(f)
	return a
}

// start begins writing to f from a goroutine of its own.
func (a *artifact) start(f *os.File) {
	a.f = f
	a.full = make(chan []byte, artifactBuffers)
	a.free = make(chan []byte, artifactBuffers)
	a.done = make(chan struct{})
	go func() {
		defer close(a.done)
		var written, started int64
		for b := range a.full {
			if a.werr == nil {
				if _, err := f.Write(b); err != nil {
					a.werr = fmt.Errorf("write artifact %s: %w", a.rel, err)
				}
				written += int64(len(b))
				// Start writeback as the file grows, so the final fsync
				// finds little left to do.
				if written-started >= writebackEvery {
					startWriteback(f, started, written-started)
					started = written
				}
			}
			a.free <- b[:0]
		}
	}()
}

// writebackEvery is how much an artifact grows between writeback starts.
const writebackEvery = 32 << 20

// startWriteback asks the kernel to start writing a range to disk without
// waiting for it (sync_file_range SYNC_FILE_RANGE_WRITE). It is only a
// head start for the fsync at the end, which stays the durability point;
// a failure here changes nothing.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}

var artifactPool = sync.Pool{New: func() any { b := make([]byte, 0, artifactBuffer); return &b }}

func (a *artifact) Write(p []byte) (int, error) {
	n0 := len(p)
	if room := a.limit - a.size; a.limit > 0 && int64(len(p)) > room {
		a.dropped += int64(len(p)) - max(room, 0)
		p = p[:max(room, 0)]
	}
	if a.err != nil || a.f == nil || len(p) == 0 {
		return n0, nil
	}
	a.size += int64(len(p))
	for len(p) > 0 {
		if a.cur == nil {
			a.cur = a.buffer()
		}
		n := copy(a.cur[len(a.cur):cap(a.cur)], p)
		a.cur = a.cur[:len(a.cur)+n]
		p = p[n:]
		if len(a.cur) == cap(a.cur) {
			a.full <- a.cur
			a.cur = nil
		}
	}
	return n0, nil
}

// buffer is a returned buffer, or a new one while fewer than
// artifactBuffers exist (a short command never needs a second), or else
// the next one the writer returns.
func (a *artifact) buffer() []byte {
	select {
	case b := <-a.free:
		return b
	default:
	}
	if a.nbuf < artifactBuffers {
		a.nbuf++
		return (*artifactPool.Get().(*[]byte))[:0]
	}
	return <-a.free
}

// close writes what is buffered, syncs and closes the file; the first
// error of the artifact's life is returned. Closing twice is harmless.
func (a *artifact) close() error {
	if a.f == nil || a.closed {
		return a.err
	}
	a.closed = true
	if len(a.cur) > 0 {
		a.full <- a.cur
		a.cur = nil
	}
	close(a.full)
	<-a.done
	for range a.nbuf {
		b := <-a.free
		artifactPool.Put(&b)
	}
	if a.err == nil {
		a.err = a.werr
	}
	if a.err == nil {
		if err := a.f.Sync(); err != nil {
			a.err = fmt.Errorf("sync artifact %s: %w", a.rel, err)
		}
	}
	if err := a.f.Close(); err != nil && a.err == nil {
		a.err = fmt.Errorf("close artifact %s: %w", a.rel, err)
	}
	return a.err
}
