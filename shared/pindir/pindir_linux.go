// Package pindir pins a working directory: opened once, by a path that
// may hold no symlink (and beneath a root when one is given), and handed
// to a child process by descriptor. Whatever is renamed or replaced by a
// symlink after the path was checked, the child starts in the directory
// that was opened. The terminal's commands and the MCP stdio servers
// start this way.
package pindir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Dir is a pinned directory.
type Dir struct {
	f *os.File
}

// how opens a directory without following anything: the checked path has
// its symlinks resolved already, so a symlink met now was put there after
// the check.
var how = unix.OpenHow{
	Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOCTTY,
	Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
}

// Open pins dir (absolute, symlinks resolved). With root set, dir must lie
// beneath it and is opened relative to an open root with RESOLVE_BENEATH,
// so no path component can lead out of it.
func Open(root, dir string) (*Dir, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("working directory %q is not absolute", dir)
	}
	base, rel := unix.AT_FDCWD, filepath.Clean(dir)
	h := how
	if root != "" {
		r, err := filepath.Rel(root, rel)
		if err != nil || !filepath.IsLocal(r) {
			return nil, fmt.Errorf("working directory %q is outside the workspace %q", dir, root)
		}
		rfd, err := unix.Openat2(unix.AT_FDCWD, root, &how)
		if err != nil {
			return nil, openError(root, err)
		}
		defer unix.Close(rfd)
		base, rel = rfd, r
		h.Resolve |= unix.RESOLVE_BENEATH
	}
	fd, err := unix.Openat2(base, rel, &h)
	if err != nil {
		return nil, openError(dir, err)
	}
	return &Dir{f: os.NewFile(uintptr(fd), dir)}, nil
}

func openError(dir string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return fmt.Errorf("working directory %q changed after it was checked (a symlink now stands in its path); nothing was started", dir)
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("working directory %q cannot be opened safely: this kernel has no openat2 (Linux 5.6+ is needed)", dir)
	}
	return fmt.Errorf("open working directory %q: %w", dir, err)
}

// ChildPath is the directory as a child's chdir sees it (exec.Cmd.Dir).
// Between fork and exec the child has the parent's descriptor numbers
// (only stdio is moved, onto 0-2), so this magic link reaches the pinned
// directory itself, never a path looked up again.
func (d *Dir) ChildPath() string { return "/proc/self/fd/" + strconv.Itoa(int(d.f.Fd())) }

// Close releases the directory once the child has started.
func (d *Dir) Close() {
	if d != nil {
		_ = d.f.Close()
	}
}
