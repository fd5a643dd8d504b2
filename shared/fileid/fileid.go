// Package fileid is what the kernel says about a file's identity and
// state without reading it: the one comparison the host's caches and
// live reloads use to tell that a file changed.
//
// Two files are the same and unchanged while every field is equal. ctime
// is what makes that enough: the kernel sets it on every change of a
// file's contents, entries or metadata (mtime can be put back with
// utimes; ctime cannot be set without changing the clock, which takes
// root), and a file swapped in by rename has another inode or device.
// The kernel stamps times from a coarse clock (one tick, a few
// milliseconds): a change in the same tick as a read could keep the
// times the read saw, so a caller keeps what it read under an ID only
// when the ID's ctime is older than that (Changed).
//
// Take an ID from the descriptor the content is read from (Of): a stat
// of the path before the open races a rename over it.
package fileid

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// ID is a file's device, inode, st_mode (type and permission bits),
// owner, size, modification and change times (ns).
type ID struct {
	Dev   uint64 `json:"dev"`
	Inode uint64 `json:"inode"`
	Mode  uint32 `json:"mode"`
	UID   uint32 `json:"uid"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
}

// ErrNoStat is a file system that gave no syscall.Stat_t.
var ErrNoStat = errors.New("the file system gave no device and inode")

// Of is the ID of the file f is open on (fstat).
func Of(f *os.File) (ID, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return ID{}, &fs.PathError{Op: "fstat", Path: f.Name(), Err: err}
	}
	return fromStat(&st), nil
}

// FromInfo is the ID in fi (from a Stat, Lstat or an open file's Stat);
// ok is false when the file system gave no Stat_t. Prefer Of on the
// descriptor the content is read from: a path's stat names whatever is
// there at that moment.
func FromInfo(fi fs.FileInfo) (id ID, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ID{}, false
	}
	return fromStat(st), true
}

func fromStat(st *syscall.Stat_t) ID {
	return ID{Dev: uint64(st.Dev), Inode: st.Ino, Mode: st.Mode, UID: st.Uid, Size: st.Size,
		Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}

// Equal reports whether id and o are the same file, unchanged.
func (id ID) Equal(o ID) bool { return id == o }

// IsRegular reports whether id is a regular file's.
func (id ID) IsRegular() bool { return id.Mode&syscall.S_IFMT == syscall.S_IFREG }

// Changed is the file's change time (ctime): what was read under id is
// kept only when it is older than a kernel tick (a second, say).
func (id ID) Changed() time.Time { return time.Unix(0, id.Ctime) }
