package shellguard

import (
	"time"

	"demiurge.dev/shared/fileid"
)

// The guard's caches (a directory's listing, a repository's review) are
// good only while every file they read still has the fileid.ID it had
// when it was read (device, inode, type, owner, size, mtime, ctime).

// settledAge is how old a ctime must be before what was read under it may
// be cached. The kernel stamps times from a coarse clock (one tick, a few
// milliseconds): a change in the same tick as the read could keep the
// ctime the read saw. A change a second later cannot.
var settledAge = time.Second

// settled reports whether id's ctime is old enough to vouch for what was
// read (see settledAge).
func settled(id fileid.ID, now time.Time) bool {
	return now.UnixNano()-id.Ctime > int64(settledAge)
}
