package fsops

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// beforePublish runs between the staged file's fsync and the exchange
// that publishes it; tests use it to race a replacement against publish.
var beforePublish func()

// fileIdentity is what a publish checks the file it displaces against:
// the file the operation inspected, as it was when inspected.
type fileIdentity struct {
	dev, ino uint64
	size     int64
	mtime    unix.Timespec
}

func identityOf(st *unix.Stat_t) *fileIdentity {
	return &fileIdentity{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim}
}

func (id *fileIdentity) matches(st *unix.Stat_t) bool {
	return st.Dev == id.dev && st.Ino == id.ino && st.Size == id.size && st.Mtim == id.mtime
}

// changedReason is what the model reads when a publish found another
// file than the one inspected: nothing was written.
const changedReason = "the file changed while it was being edited: nothing was written; read it again and retry"

// publish sets the mode on the staged descriptor (a path chmod can be
// redirected), makes the content durable, and swaps it in with no window:
//   - replacing (was != nil): renameat2(RENAME_EXCHANGE) swaps the staged
//     file and the target atomically; the file swapped out must be the
//     one inspected (device, inode, size, mtime), or it is swapped back
//     and the write fails;
//   - creating (was == nil): renameat2(RENAME_NOREPLACE) fails if a file
//     appeared at the name meanwhile.
//
// A check before a plain rename would leave the time between the check
// and the rename (the fsync of a large file) open to a replacement that
// the rename would then silently destroy. The staged file is consumed.
func (s *stagedFile) publish(mode uint32, was *fileIdentity) error {
	pp := s.pp
	if err := unix.Fchmod(s.fd, mode); err != nil {
		s.discard()
		return fmt.Errorf("%s: set mode: %w", pp.t.display, err)
	}
	if err := s.f.Sync(); err != nil {
		s.discard()
		return fmt.Errorf("%s: sync staged file: %w", pp.t.display, err)
	}
	if beforePublish != nil {
		beforePublish()
	}
	if err := s.link(); err != nil {
		s.discard()
		return err
	}
	if was == nil {
		err := unix.Renameat2(pp.fd, s.name, pp.fd, pp.name, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EEXIST) {
			s.discard()
			return refuse(pp.t.display, ErrChanged, "a file was created at this path while it was being written: nothing was written; read it and retry")
		}
		if err != nil {
			s.discard()
			return fmt.Errorf("%s: publish staged file: %w", pp.t.display, err)
		}
		return s.finish()
	}
	err := unix.Renameat2(pp.fd, s.name, pp.fd, pp.name, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOENT) {
		s.discard()
		return refuse(pp.t.display, ErrChanged, "the file was removed while it was being edited: nothing was written")
	}
	if err != nil {
		s.discard()
		return fmt.Errorf("%s: publish staged file (exchange): %w", pp.t.display, err)
	}
	var out unix.Stat_t
	if err := unix.Fstatat(pp.fd, s.name, &out, unix.AT_SYMLINK_NOFOLLOW); err != nil || !was.matches(&out) {
		return s.swapBack()
	}
	// What was swapped out is the file that was read: it goes.
	if err := unix.Unlinkat(pp.fd, s.name, 0); err != nil {
		s.f.Close()
		return fmt.Errorf("%s: remove the replaced file %s: %w", pp.t.display, s.name, err)
	}
	return s.finish()
}

// swapBack undoes an exchange that displaced a file other than the one
// inspected: that file goes back to the target name untouched.
func (s *stagedFile) swapBack() error {
	pp := s.pp
	if err := unix.Renameat2(pp.fd, s.name, pp.fd, pp.name, unix.RENAME_EXCHANGE); err != nil {
		s.f.Close()
		return fmt.Errorf("%s: the file changed while it was being edited, and swapping it back failed: it is at %s: %w", pp.t.display, s.name, err)
	}
	if !s.unlinkIfOurs() {
		// Yet another file was put at the target meanwhile; whatever the
		// staged name holds now is not ours to remove.
		s.f.Close()
		return refuse(pp.t.display, ErrChanged, "the file changed while it was being edited: nothing was written; the file that was at the path is now at %s", s.name)
	}
	s.f.Close()
	if err := unix.Fsync(pp.fd); err != nil {
		return fmt.Errorf("%s: sync directory: %w", pp.t.display, err)
	}
	return refuse(pp.t.display, ErrChanged, changedReason)
}

// finish makes the rename durable and releases the staged file's lock.
func (s *stagedFile) finish() error {
	err := unix.Fsync(s.pp.fd)
	s.f.Close()
	if err != nil {
		return fmt.Errorf("%s: sync directory: %w", s.pp.t.display, err)
	}
	return nil
}

// keptMode is the mode a replaced file's content is published with: its
// permission bits. Setuid, setgid and sticky are dropped: the new content
// is not the program someone made setuid, and the staged file's owner is
// this process, not necessarily the old owner.
func keptMode(st *unix.Stat_t) (mode uint32, dropped string) {
	mode = st.Mode & 0o777
	var names []string
	if st.Mode&unix.S_ISUID != 0 {
		names = append(names, "setuid")
	}
	if st.Mode&unix.S_ISGID != 0 {
		names = append(names, "setgid")
	}
	if st.Mode&unix.S_ISVTX != 0 {
		names = append(names, "sticky")
	}
	for i, n := range names {
		if i > 0 {
			dropped += ", "
		}
		dropped += n
	}
	return mode, dropped
}
