package fsops

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"demiurge.dev/shared/pathrules"
	"golang.org/x/sys/unix"
)

// openFlags never block (a FIFO would wait for a writer) and never follow
// a final symlink by themselves. Inside the workspace, os.Root follows a
// symlink that stays inside the root (in any component, the last one
// included); the checks on the opened descriptor then apply to the target
// exactly as to a path named directly: type and link count (checkRegular)
// and the sensitive-path rule on its real path (checkRealPath).
const openFlags = os.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// openedFile is a regular file opened through the boundary and checked on
// its descriptor.
type openedFile struct {
	f    *os.File
	t    target
	size int64
}

func (o *openedFile) Close() error { return o.f.Close() }

// openRead opens p for reading: inside the root through os.Root, or a
// granted path through an os.Root of its parent directory.
func (w *Workspace) openRead(p string) (*openedFile, error) {
	t, err := w.resolve(p)
	if err != nil {
		return nil, err
	}
	var f *os.File
	if t.grant {
		// A grant names one exact file the operator approved: its final
		// component is opened with O_NOFOLLOW, a symlink there is refused.
		parent, err := os.Open(filepath.Dir(t.abs))
		if err != nil {
			return nil, openError(p, err)
		}
		fd, err := unix.Openat(int(parent.Fd()), filepath.Base(t.abs), openFlags, 0)
		parent.Close()
		if errors.Is(err, unix.ELOOP) {
			return nil, refuse(p, ErrSymlink, "the granted path is a symlink; only the exact file approved is opened, ask for the file it points to")
		}
		if err != nil {
			return nil, openError(p, err)
		}
		f = os.NewFile(uintptr(fd), t.abs)
	} else {
		f, err = w.root.OpenFile(t.rel, openFlags, 0)
		if err != nil {
			return nil, openError(p, err)
		}
	}
	st, err := checkRegular(p, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := w.checkRealPath(p, t, f); err != nil {
		f.Close()
		return nil, err
	}
	return &openedFile{f: f, t: t, size: st.Size}, nil
}

// checkRegular refuses, on the open descriptor, anything but a regular
// file with exactly one link: a second link may alias a file outside the
// workspace, and devices, FIFOs and sockets are not files to read.
func checkRegular(p string, f *os.File) (*syscall.Stat_t, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: stat: %w", p, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("%s: stat: no unix stat data", p)
	}
	if err := checkMode(p, st.Mode, uint64(st.Nlink)); err != nil {
		return nil, err
	}
	return st, nil
}

func checkMode(p string, mode uint32, nlink uint64) error {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		return refuse(p, ErrIsDirectory, "is a directory; use search_files with mode files to list it (glob \"/*\" for its top level)")
	case unix.S_IFLNK:
		return refuse(p, ErrSymlink, "is a symlink; use the path it points to")
	default:
		return refuse(p, ErrNotRegular, "is not a regular file (%s); only regular files can be used", fileKind(mode))
	}
	if nlink > 1 {
		return refuse(p, ErrHardLinked, "has %d hard links; refused because a hard link can alias a file outside the workspace", nlink)
	}
	return nil
}

func fileKind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	}
	return "special file"
}

// checkRealPath compares where the descriptor really is with where the
// request said it would be. A path that reached a credential through a
// symlink is refused even though the symlink stayed inside the root.
func (w *Workspace) checkRealPath(p string, t target, f *os.File) error {
	real, err := fdPath(f)
	if err != nil {
		return fmt.Errorf("%s: resolve real path: %w", p, err)
	}
	if real == t.abs {
		return nil
	}
	requested := t.abs
	if !t.grant {
		requested = t.rel
		rel, inside := w.relToRoot(real)
		if !inside {
			return refuse(p, ErrOutsideWorkspace, "resolves to a location outside the workspace")
		}
		real = rel
	}
	if pathrules.IsSensitive(real) && !pathrules.IsSensitive(requested) {
		return refuse(p, ErrSensitive, "resolves through a symlink to a sensitive path; refused")
	}
	// Here a symlink was followed. The host judged the path asked for; a
	// link into its state (hoststate.go), which it asks the operator about,
	// may have been swapped in behind that path since (a background
	// command can), so none is followed: the state is read by its name.
	if !t.grant && w.inHostState(real, false) {
		return refuse(p, ErrSensitive, "resolves through a symlink into the host's state directory; refused (name the real path)")
	}
	return nil
}

// fdPath is the kernel's name for an open descriptor.
func fdPath(f *os.File) (string, error) {
	var real string
	var rerr error
	rc, err := f.SyscallConn()
	if err != nil {
		return "", err
	}
	err = rc.Control(func(fd uintptr) {
		real, rerr = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	})
	if err != nil {
		return "", err
	}
	if rerr != nil {
		return "", rerr
	}
	if strings.HasSuffix(real, " (deleted)") {
		return "", errors.New("file was deleted while open")
	}
	return real, nil
}

// openError turns an open failure into a model-facing refusal where the
// cause is the request, and wraps anything else.
func openError(p string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.ENOENT:
			return refuse(p, ErrNotFound, "no such file; check the path (search_files can find files by name)")
		case unix.ENOTDIR:
			return refuse(p, ErrNotFound, "a component of the path is not a directory")
		case unix.ELOOP:
			return refuse(p, ErrSymlink, "too many levels of symlinks; use the real path")
		case unix.EACCES, unix.EPERM:
			return refuse(p, fs.ErrPermission, "permission denied")
		case unix.ENXIO, unix.EWOULDBLOCK:
			return refuse(p, ErrNotRegular, "is not a regular file; only regular files can be used")
		}
		return fmt.Errorf("%s: open: %w", p, err)
	}
	// os.Root reports an escape (by '..' or by a symlink leading outside)
	// with an unexported error value.
	if strings.Contains(err.Error(), "escapes") {
		return refuse(p, ErrOutsideWorkspace, "leads outside the workspace (through '..' or a symlink); use a path inside the workspace")
	}
	return fmt.Errorf("%s: open: %w", p, err)
}
