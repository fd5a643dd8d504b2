package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"demiurge.dev/shared/pathrules"
)

// The sensitive-file scan is cached per workspace by the launcher (a
// long-lived plugin), so that a start reads only the directories that
// changed: creating, removing or renaming an entry changes its
// directory's mtime, and sensitivity depends on names alone. A directory
// whose mtime is too close to the time it was read may still change
// within the same timestamp tick, so it is read again next time (git's
// "racy" rule).
const racyMargin = 100 * time.Millisecond

// dirScan is one directory as last read.
type dirScan struct {
	ino       uint64
	mtime     time.Time
	readAt    time.Time
	sensitive []string // sensitive entries directly in it (absolute)
	subdirs   []string // subdirectories to descend into (absolute)
	entries   int
}

// scanCache holds the directories of every workspace this process scanned.
type scanCache struct {
	mu   sync.Mutex
	dirs map[string]*dirScan
}

var sensitiveCache = &scanCache{dirs: map[string]*dirScan{}}

// SensitiveCached is SensitiveIn, served from this process's cache where
// the directories have not changed since they were last read. It fails
// like SensitiveIn when the workspace is larger than the scan bound.
func SensitiveCached(root string) ([]string, error) {
	root = filepath.Clean(root)
	c := sensitiveCache
	c.mu.Lock()
	defer c.mu.Unlock()
	var found []string
	n := 0
	var visit func(dir string) error
	visit = func(dir string) error {
		d, err := c.fresh(root, dir)
		if err != nil {
			return err
		}
		if d == nil {
			return nil // unreadable for us is unreadable for the command
		}
		if n += d.entries; n > maxScanEntries {
			return fmt.Errorf("the workspace has more than %d entries to scan for sensitive files; sandbox a smaller directory", maxScanEntries)
		}
		found = append(found, d.sensitive...)
		for _, sub := range d.subdirs {
			if err := visit(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(root); err != nil {
		return nil, err
	}
	return found, nil
}

// fresh returns dir's scan, reading the directory again when it is new,
// replaced (other inode), changed (other mtime) or was read too soon
// after its last change. nil means unreadable.
func (c *scanCache) fresh(root, dir string) (*dirScan, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		delete(c.dirs, dir)
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	if d := c.dirs[dir]; d != nil && d.ino == ino && d.mtime.Equal(fi.ModTime()) && d.readAt.Sub(d.mtime) > racyMargin {
		return d, nil
	}
	readAt := time.Now()
	ents, err := os.ReadDir(dir)
	if err != nil {
		delete(c.dirs, dir)
		if errors.Is(err, fs.ErrPermission) {
			return nil, nil
		}
		return nil, err
	}
	d := &dirScan{ino: ino, mtime: fi.ModTime(), readAt: readAt, entries: len(ents)}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		rel, _ := filepath.Rel(root, p)
		if e.IsDir() && rel == filepath.Join(".git", "objects") {
			continue
		}
		if pathrules.IsSensitive(rel) {
			d.sensitive = append(d.sensitive, p)
			continue // a sensitive directory is hidden whole
		}
		if e.IsDir() {
			d.subdirs = append(d.subdirs, p)
		}
	}
	c.dirs[dir] = d
	return d, nil
}

// ForgetSensitiveScans empties this process's scan cache, so the next
// start reads every directory again (a benchmark's cold start).
func ForgetSensitiveScans() {
	sensitiveCache.mu.Lock()
	defer sensitiveCache.mu.Unlock()
	clear(sensitiveCache.dirs)
}
