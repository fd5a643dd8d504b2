package shellguard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	"demiurge.dev/shared/fileid"
)

// Walking a tree a command reads (grep -r, rg on a directory) lists every
// directory in it on every check: open, getdents, close, for a tree like
// /etc hundreds of times. A listing is therefore kept per directory path
// with the directory's fileid.ID, taken from the opened descriptor before it
// is read (a change after that moves the ctime, so the listing is never
// kept under an identity older than itself), and handed out again only
// while a stat of the path gives that same fileid.ID: an entry added,
// removed or renamed changes the directory's ctime, and a directory
// swapped in by rename has another inode. Listings of directories whose
// ctime is not yet settled are not kept (settledAge).
//
// A listing holds names and types only; what the walk does with an entry
// (a symlink's target, a subdirectory's own listing) is looked at again or
// cached under that file's own identity.
//
// The cache is bounded twice: by directories, and by the entries all its
// listings hold together, since one directory may list up to
// maxTreeEntries names and 4,096 such listings would be gigabytes. When
// either bound would be passed the cache starts over: the next walk lists
// again what it needs.
const (
	maxDirCache        = 4096
	maxDirCacheEntries = 65536
)

var dirCache struct {
	sync.Mutex
	m       map[string]cachedDir
	entries int // the entries of every listing in m
}

type cachedDir struct {
	id      fileid.ID
	entries []fs.DirEntry
}

// cachedListing is path's kept listing when the directory there still has
// the identity it was read under.
func cachedListing(name string) ([]fs.DirEntry, bool) {
	dirCache.Lock()
	c, ok := dirCache.m[name]
	dirCache.Unlock()
	if !ok {
		return nil, false
	}
	// Stat, not Lstat: the listing is of what open follows to.
	fi, err := os.Stat(name)
	if err != nil {
		return nil, false
	}
	if id, ok := fileid.FromInfo(fi); !ok || id != c.id {
		return nil, false
	}
	return c.entries, true
}

func keepListing(name string, id fileid.ID, entries []fs.DirEntry) {
	if len(entries) > maxDirCacheEntries {
		return
	}
	dirCache.Lock()
	defer dirCache.Unlock()
	old, replacing := dirCache.m[name]
	if replacing {
		dirCache.entries -= len(old.entries)
	}
	if dirCache.m == nil || (!replacing && len(dirCache.m) >= maxDirCache) ||
		dirCache.entries+len(entries) > maxDirCacheEntries {
		dirCache.m = map[string]cachedDir{}
		dirCache.entries = 0
	}
	dirCache.m[name] = cachedDir{id: id, entries: entries}
	dirCache.entries += len(entries)
}

func (OSFiles) ReadDir(name string, max int) ([]fs.DirEntry, error) {
	if entries, ok := cachedListing(name); ok {
		if len(entries) > max {
			return nil, fmt.Errorf("%s: %w", name, errTooMany)
		}
		return entries, nil
	}
	// O_NONBLOCK: a FIFO swapped in for the directory must not hang the
	// guard; O_DIRECTORY refuses it outright.
	d, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	fi, statErr := d.Stat() // before the read: see above
	entries, err := d.ReadDir(max + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(entries) > max {
		return nil, fmt.Errorf("%s: %w", name, errTooMany)
	}
	if statErr == nil {
		if id, ok := fileid.FromInfo(fi); ok && settled(id, time.Now()) {
			keepListing(name, id, entries)
		}
	}
	return entries, nil
}
