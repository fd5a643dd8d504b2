package fsops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"demiurge.dev/shared/pathrules"
	"golang.org/x/sys/unix"
)

// pinnedParent is the directory a write lands in, held open by descriptor
// so that staging, the source read and the final rename all happen in the
// same directory even if a path component is renamed meanwhile.
type pinnedParent struct {
	dir  *os.File
	fd   int
	name string // final component of the target
	t    target
}

func (pp *pinnedParent) Close() error { return pp.dir.Close() }

// pinParent resolves p for writing. Writes are refused into credential-like
// paths and through symlinks (in any component), because a write follows
// the link to wherever it points today.
func (w *Workspace) pinParent(p string, createDirs bool) (*pinnedParent, error) {
	t, err := w.resolve(p)
	if err != nil {
		return nil, err
	}
	sensitiveName := t.abs
	if !t.grant {
		if t.rel == "." {
			return nil, refuse(p, ErrIsDirectory, "is the workspace root; give a file path")
		}
		sensitiveName = t.rel
	}
	if pathrules.IsSensitive(sensitiveName) {
		return nil, refuse(p, ErrSensitive, "is a credential-like path; writing it is refused")
	}
	dirAbs := filepath.Dir(t.abs)
	var dir *os.File
	if t.grant {
		if createDirs {
			if err := os.MkdirAll(dirAbs, 0o755); err != nil {
				return nil, fmt.Errorf("%s: create parent directories: %w", p, err)
			}
		}
		dir, err = os.OpenFile(dirAbs, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	} else {
		dirRel := filepath.Dir(t.rel)
		if createDirs {
			if err := w.root.MkdirAll(dirRel, 0o755); err != nil {
				var refused *RefusedError
				if oe := openError(p, err); errors.As(oe, &refused) {
					return nil, oe
				}
				return nil, fmt.Errorf("%s: create parent directories: %w", p, err)
			}
		}
		dir, err = w.root.OpenFile(dirRel, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		oe := openError(p, err)
		if errors.Is(oe, ErrNotFound) {
			return nil, refuse(p, ErrNotFound, "parent directory does not exist; set create_dirs to create it")
		}
		return nil, oe
	}
	real, err := fdPath(dir)
	if err != nil {
		dir.Close()
		return nil, fmt.Errorf("%s: resolve parent directory: %w", p, err)
	}
	if real != dirAbs {
		dir.Close()
		return nil, refuse(p, ErrSymlink, "the parent directory is reached through a symlink; write to the real path")
	}
	var fd int
	rc, err := dir.SyscallConn()
	if err == nil {
		err = rc.Control(func(u uintptr) { fd = int(u) })
	}
	if err != nil {
		dir.Close()
		return nil, fmt.Errorf("%s: parent directory descriptor: %w", p, err)
	}
	return &pinnedParent{dir: dir, fd: fd, name: filepath.Base(t.abs), t: t}, nil
}

// statTarget reports the existing target, or exists=false. A symlink, a
// directory, a special file or a multiply-linked file is refused.
func (pp *pinnedParent) statTarget(p string) (st unix.Stat_t, exists bool, err error) {
	err = unix.Fstatat(pp.fd, pp.name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("%s: stat: %w", p, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return st, true, refuse(p, ErrSymlink, "is a symlink; writing through a symlink is refused, use the path it points to")
	}
	return st, true, checkMode(p, st.Mode, uint64(st.Nlink))
}

// openSource opens the existing target for reading from the pinned
// directory, never following a symlink, and checks the descriptor.
func (pp *pinnedParent) openSource(p string) (*os.File, *unix.Stat_t, error) {
	fd, err := unix.Openat(pp.fd, pp.name, openFlags, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, nil, refuse(p, ErrSymlink, "is a symlink; editing through a symlink is refused, use the path it points to")
		}
		if errors.Is(err, unix.ENOENT) {
			return nil, nil, refuse(p, ErrNotFound, "no such file; use write_file to create it")
		}
		return nil, nil, openError(p, err)
	}
	f := os.NewFile(uintptr(fd), pp.t.abs)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: stat: %w", p, err)
	}
	if err := checkMode(p, st.Mode, uint64(st.Nlink)); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, &st, nil
}
