package policy

import (
	"errors"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noSymlinks reports whether the kernel resolves the clean absolute path
// p to an existing file without meeting a symlink in any component, the
// last included: one openat2(O_PATH, RESOLVE_NO_SYMLINKS) and a close,
// where realPath's walk costs an lstat per component, each of which walks
// the path from / again. The resolution is one kernel walk, so it is at
// least as strict as the lstat walk: an ancestor swapped for a symlink at
// any moment before it makes it fail (ELOOP), and the walk then follows
// the link. O_PATH opens nothing (no FIFO blocks, no device is opened).
// Any failure — a missing component, a symlink, a kernel without openat2
// or a seccomp filter refusing it — sends the caller to the walk.
func noSymlinks(p string) bool {
	if openat2Missing.Load() || !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	for tries := 0; errors.Is(err, unix.EINTR) && tries < 8; tries++ {
		fd, err = unix.Openat2(unix.AT_FDCWD, p, &how)
	}
	if err != nil {
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
			openat2Missing.Store(true)
		}
		return false
	}
	unix.Close(fd)
	return true
}

// openat2Missing is set once openat2 proved unavailable: every later path
// takes the walk at once.
var openat2Missing atomic.Bool
