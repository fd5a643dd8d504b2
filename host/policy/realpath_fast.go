package policy

import (
	"errors"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noSymlinks reports whether the kernel resolves the clean absolute path
// p without meeting a symlink in any component, the last included, so
// that p is its own real path: one openat2(O_PATH|O_DIRECTORY,
// RESOLVE_NO_SYMLINKS), where realPath's walk costs an lstat per
// component, each of which walks the path from / again. The resolution
// is one kernel walk, so it is at least as strict as the lstat walk: an
// ancestor swapped for a symlink at any moment before it makes it fail
// (ELOOP), and the walk then follows the link. O_PATH opens nothing (no
// FIFO blocks, no device is opened).
//
// O_DIRECTORY spares the common case its close: a path that ends in a
// file (anything but a directory) fails with ENOTDIR only after the
// kernel has walked every component without meeting a symlink (a
// trailing symlink is refused first, with ELOOP), and no descriptor is
// made. ENOTDIR for a component in the middle (a/file.txt/x) means the
// same: every component up to that file was walked without a link, and
// nothing can lie below a file, which the walk too keeps as written. A
// directory is opened, and its descriptor closed.
//
// ENOENT too says that no symlink was met: the kernel refuses a link
// (ELOOP) before it looks for anything beyond it, so every component
// before the missing one was walked without one, and the walk keeps the
// part from the missing component on as written: a new file's path (a
// write that creates it) is its own, without an lstat per component.
//
// Any other failure — a symlink, a component not searchable, a kernel
// without openat2 or a seccomp filter refusing it — sends the caller to
// the walk.
func noSymlinks(p string) bool {
	if openat2Missing.Load() || !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	for tries := 0; errors.Is(err, unix.EINTR) && tries < 8; tries++ {
		fd, err = unix.Openat2(unix.AT_FDCWD, p, &how)
	}
	switch {
	case err == nil:
		unix.Close(fd)
		return true
	case errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ENOENT):
		return true
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		openat2Missing.Store(true)
	}
	return false
}

// openat2Missing is set once openat2 proved unavailable: every later path
// takes the walk at once.
var openat2Missing atomic.Bool
