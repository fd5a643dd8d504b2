package shellguard

import (
	"fmt"
	"io/fs"
	"testing"

	"demiurge.dev/shared/fileid"
)

// TestDirCacheBoundsItsEntries: the listing cache holds at most
// maxDirCacheEntries entries in all, however they are spread: a few
// directories of many entries each start it over as surely as many
// directories do, a listing replaced under its own name is not counted
// twice, and a listing larger than the whole bound is not kept.
func TestDirCacheBoundsItsEntries(t *testing.T) {
	dirCache.Lock()
	saved, savedN := dirCache.m, dirCache.entries
	dirCache.m, dirCache.entries = nil, 0
	dirCache.Unlock()
	t.Cleanup(func() {
		dirCache.Lock()
		dirCache.m, dirCache.entries = saved, savedN
		dirCache.Unlock()
	})

	listing := func(n int) []fs.DirEntry { return make([]fs.DirEntry, n) }
	total := func() (dirs, entries, counted int) {
		dirCache.Lock()
		defer dirCache.Unlock()
		for _, c := range dirCache.m {
			entries += len(c.entries)
		}
		return len(dirCache.m), entries, dirCache.entries
	}

	big := maxTreeEntries // the largest listing a walk reads
	for i := range 40 {
		keepListing(fmt.Sprintf("/d%d", i), fileid.ID{Inode: uint64(i)}, listing(big))
		_, entries, counted := total()
		if entries > maxDirCacheEntries {
			t.Fatalf("after %d listings of %d entries the cache holds %d entries (bound %d)", i+1, big, entries, maxDirCacheEntries)
		}
		if counted != entries {
			t.Fatalf("the cache counts %d entries and holds %d", counted, entries)
		}
	}

	// The same name again: replaced, not added.
	dirCache.Lock()
	dirCache.m, dirCache.entries = nil, 0
	dirCache.Unlock()
	for i := range 10 {
		keepListing("/same", fileid.ID{Inode: 1}, listing(big))
		if dirs, entries, counted := total(); dirs != 1 || entries != big || counted != big {
			t.Fatalf("one name kept %d times: %d directories, %d entries, %d counted; want 1, %d, %d", i+1, dirs, entries, counted, big, big)
		}
	}

	keepListing("/huge", fileid.ID{Inode: 2}, listing(maxDirCacheEntries+1))
	if listingKept("/huge") {
		t.Fatal("a listing larger than the whole bound was kept")
	}
}
