package runtime

import (
	"os"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// The store keeps written zeros past bbolt's last page (its "tail").
//
// bbolt grows its file with ftruncate, which leaves a hole: the first
// write of each new page then allocates a block, and the commit's
// fdatasync must also commit the file system's journal (the block map
// changed) before it returns. On ext4 that is a second cache flush inside
// the first of a commit's two fdatasyncs, on the path of every audit
// event that lands on a new page (an agent's step's, most of the time).
// Pages overwritten in place (written blocks) need no journal commit, so
// the writer writes zeros ahead of the pages bbolt will use, when nobody
// waits for a commit.
//
// Safe because: only the writer goroutine commits (and Open, before the
// writer starts), so while it extends the tail no transaction writes the
// file; the zeros go only at or past the file's size, which bbolt's grow
// makes at least its last page's end before it writes a page, so they
// never touch a page bbolt wrote; pages past the meta's high-water mark
// are unallocated to bbolt, whatever they hold; and the extension is
// synced before any commit can use it, so a crash leaves a longer file of
// zeros, which bbolt ignores. Durability is unchanged: each commit still
// flushes its pages and then its meta page.
const (
	// tailLow is the written space past the last page below which the
	// writer extends the tail, to tailStep past the last page.
	tailLow  = 256 << 10
	tailStep = 1 << 20
)

var tailZeros = make([]byte, 64<<10)

// tailFile is the store's file as bbolt opened it (captured by Open's
// OpenFile), with what the writer knows of its size.
type tailFile struct {
	f    *os.File
	size int64
	off  bool // an extension failed (a full disk): bbolt grows as before
}

// keepTail extends the tail when less than tailLow is left past the last
// page. The writer calls it after a commit, and only with nothing queued.
func (s *Store) keepTail() {
	t := s.tail
	if t == nil || t.off {
		return
	}
	var last int64
	if s.db.View(func(tx *bolt.Tx) error { last = tx.Size(); return nil }) != nil {
		return
	}
	if t.size-last >= tailLow {
		return
	}
	// The size as the file has it: bbolt's grow may have moved it.
	fi, err := t.f.Stat()
	if err != nil {
		t.off = true
		return
	}
	t.size = fi.Size()
	if t.size-last >= tailLow {
		return
	}
	end := last + tailStep
	for off := t.size; off < end; {
		n := min(int64(len(tailZeros)), end-off)
		if _, err := t.f.WriteAt(tailZeros[:n], off); err != nil {
			t.off = true
			return
		}
		off += n
		t.size = off
	}
	if err := fdatasync(t.f); err != nil {
		t.off = true
	}
}

func statOf(f *os.File) (os.FileInfo, error) {
	if f == nil {
		return nil, os.ErrInvalid
	}
	return f.Stat()
}

func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
