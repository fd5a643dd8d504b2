package fsops

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// stagedFile is the new content of a write, built beside the target. It
// is created anonymous (O_TMPFILE) where the file system allows, so a
// plugin killed mid-write leaves nothing behind; it gets a name only for
// the instant of publishing. It is flock'ed from creation to the end, so
// the sweep (sweep.go) can tell a live staged file from a dead one.
type stagedFile struct {
	pp   *pinnedParent
	f    *os.File
	fd   int
	name string // "" while anonymous
}

// stageName is the name a staged file is given beside the target.
func (pp *pinnedParent) stageName() string {
	var b [8]byte
	rand.Read(b[:])
	name := "." + pp.name + "." + hex.EncodeToString(b[:]) + ".demiurge-tmp"
	if len(name) > 255 {
		name = ".demiurge-" + hex.EncodeToString(b[:]) + ".tmp"
	}
	return name
}

// stage creates the staged file, locked.
func (pp *pinnedParent) stage() (*stagedFile, error) {
	fd, err := unix.Openat(pp.fd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return pp.lockStaged(fd, "")
	}
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
		return nil, fmt.Errorf("%s: create staging file: %w", pp.t.display, err)
	}
	// No O_TMPFILE here: a named file, locked right after creation. The
	// sweep leaves files younger than staleAge alone, which covers the
	// instant between the two.
	for range 5 {
		name := pp.stageName()
		fd, err := unix.Openat(pp.fd, name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: create staging file: %w", pp.t.display, err)
		}
		return pp.lockStaged(fd, name)
	}
	return nil, fmt.Errorf("%s: create staging file: name collisions", pp.t.display)
}

func (pp *pinnedParent) lockStaged(fd int, name string) (*stagedFile, error) {
	s := &stagedFile{pp: pp, f: os.NewFile(uintptr(fd), pp.t.abs+" (staged)"), fd: fd, name: name}
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		s.discard()
		return nil, fmt.Errorf("%s: lock staging file: %w", pp.t.display, err)
	}
	return s, nil
}

// Write appends to the staged content.
func (s *stagedFile) Write(b []byte) (int, error) { return s.f.Write(b) }

// discard removes the staged file after a failed or rejected write.
func (s *stagedFile) discard() {
	if s.name != "" {
		s.unlinkIfOurs()
	}
	s.f.Close()
}

// unlinkIfOurs removes the staged name only while it still names our
// inode: after a failed exchange it may name someone else's file.
func (s *stagedFile) unlinkIfOurs() bool {
	var mine, there unix.Stat_t
	if unix.Fstat(s.fd, &mine) != nil || unix.Fstatat(s.pp.fd, s.name, &there, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	if mine.Dev != there.Dev || mine.Ino != there.Ino {
		return false
	}
	return unix.Unlinkat(s.pp.fd, s.name, 0) == nil
}

// link gives an anonymous staged file its name beside the target.
func (s *stagedFile) link() error {
	if s.name != "" {
		return nil
	}
	for range 5 {
		name := s.pp.stageName()
		// linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; the /proc
		// link of the descriptor does the same for anyone.
		err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(s.fd), s.pp.fd, name, unix.AT_SYMLINK_FOLLOW)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: name staged file: %w", s.pp.t.display, err)
		}
		s.name = name
		return nil
	}
	return fmt.Errorf("%s: name staged file: name collisions", s.pp.t.display)
}
