package terminal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// workDir is a command's working directory, pinned: opened once, by a
// path that may hold no symlink (and beneath the workspace root when one
// is given), and handed to the child by descriptor. Whatever is renamed
// or replaced by a symlink after the check, the command starts in the
// directory that was opened.
type workDir struct {
	f *os.File
}

// pinFlags open a directory without following anything: the checked path
// has its symlinks resolved already, so a symlink met now was put there
// after the check.
var pinHow = unix.OpenHow{
	Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOCTTY,
	Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
}

// pinWorkDir opens dir (absolute, symlinks resolved). With root set, dir
// must lie beneath it and is opened relative to an open root with
// RESOLVE_BENEATH, so no path component can lead out of it.
func pinWorkDir(root, dir string) (*workDir, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("working directory %q is not absolute", dir)
	}
	base, rel := unix.AT_FDCWD, filepath.Clean(dir)
	how := pinHow
	if root != "" {
		r, err := filepath.Rel(root, rel)
		if err != nil || !filepath.IsLocal(r) {
			return nil, fmt.Errorf("working directory %q is outside the workspace %q", dir, root)
		}
		rfd, err := unix.Openat2(unix.AT_FDCWD, root, &pinHow)
		if err != nil {
			return nil, pinError(root, err)
		}
		defer unix.Close(rfd)
		base, rel = rfd, r
		how.Resolve |= unix.RESOLVE_BENEATH
	}
	fd, err := unix.Openat2(base, rel, &how)
	if err != nil {
		return nil, pinError(dir, err)
	}
	return &workDir{f: os.NewFile(uintptr(fd), dir)}, nil
}

func pinError(dir string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return fmt.Errorf("working directory %q changed after it was checked (a symlink now stands in its path); the command was not started", dir)
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("working directory %q cannot be opened safely: this kernel has no openat2 (Linux 5.6+ is needed)", dir)
	}
	return fmt.Errorf("open working directory %q: %w", dir, err)
}

// childPath is the directory as the child's chdir sees it. Between fork
// and exec the child has the parent's descriptor numbers (only stdio is
// moved, onto 0-2), so this magic link reaches the pinned directory
// itself, never a path looked up again.
func (w *workDir) childPath() string { return "/proc/self/fd/" + strconv.Itoa(int(w.f.Fd())) }

func (w *workDir) close() {
	if w != nil {
		_ = w.f.Close()
	}
}

// testHookPinned runs after the directory is pinned and before the shell
// starts; tests swap the directory there.
var testHookPinned func()
