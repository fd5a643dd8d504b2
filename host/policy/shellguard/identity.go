package shellguard

import (
	"io/fs"
	"syscall"
	"time"
)

// fileID is what the kernel says about a file's identity and state:
// device, inode, type, size, mtime and ctime. The guard's caches (a
// directory's listing, a repository's review) are good only while every
// file they read still has the fileID it had when it was read. ctime is
// what makes that enough: the kernel sets it on every change of a file's
// contents, entries or metadata (mtime can be put back with utimes; ctime
// cannot be set without changing the clock, which takes root), and a file
// swapped in by rename has another inode or device.
type fileID struct {
	dev, ino     uint64
	mode         fs.FileMode
	size         int64
	mtime, ctime int64 // ns
}

// idOf is fi's fileID; ok is false when the file system gave no Stat_t.
func idOf(fi fs.FileInfo) (id fileID, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: st.Dev, ino: st.Ino, mode: fi.Mode(), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

// settledAge is how old a ctime must be before what was read under it may
// be cached. The kernel stamps times from a coarse clock (one tick, a few
// milliseconds): a change in the same tick as the read could keep the
// ctime the read saw. A change a second later cannot.
var settledAge = time.Second

// settled reports whether id's ctime is old enough to vouch for what was
// read (see settledAge).
func (id fileID) settled(now time.Time) bool {
	return now.UnixNano()-id.ctime > int64(settledAge)
}
