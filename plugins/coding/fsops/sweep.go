package fsops

import (
	"errors"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// stagedPattern matches the names stageName gives, and nothing a user is
// likely to have made: a 16-hex-digit random part and our suffix.
var stagedPattern = regexp.MustCompile(`^(\..+\.[0-9a-f]{16}\.demiurge-tmp|\.demiurge-[0-9a-f]{16}\.tmp)$`)

// staleAge is how long ago a staged file's inode must have last changed
// (ctime: set by the creation, every write, and by the rename that put it
// at its name; no user call can set it back) before the sweep considers
// it. It covers the instant between creating a named staged file and
// locking it, where a live file is not yet locked.
var staleAge = 30 * time.Second

// sweepBudget bounds the directory entries one sweep looks at, so a write
// into a huge directory does not pay for listing all of it.
const sweepBudget = 1 << 16

// sweepStaged removes the staged files a killed writer left in the pinned
// directory: names of our pattern, regular single-link files, unchanged
// for staleAge, and not locked. A live staged file is locked from its
// creation (named ones within staleAge of it) to its publication, so a
// live operation's file, in this process or another, is never removed.
// It returns the names it removed; failures only mean a file stays.
//
// A directory is swept at most once per staleAge by this process: a file
// younger than that is never removed anyway, and listing a directory of
// 10,000 entries on every write would cost more than the write.
func (pp *pinnedParent) sweepStaged(now time.Time) []string {
	var st unix.Stat_t
	if unix.Fstat(pp.fd, &st) != nil {
		return nil
	}
	key := [2]uint64{st.Dev, st.Ino}
	if last, ok := sweptDirs.Load(key); ok && now.Sub(last.(time.Time)) < staleAge && now.After(last.(time.Time)) {
		return nil
	}
	sweptDirs.Store(key, now)
	removed, _ := sweepDir(pp.fd, now, nil)
	return removed
}

// sweptDirs is when this process last swept each directory (device, inode).
var sweptDirs sync.Map

// sweepDir sweeps the directory open as dirFd; with subdirs set it also
// collects the names of its subdirectories (not symlinks).
func sweepDir(dirFd int, now time.Time, subdirs *[]string) (removed []string, err error) {
	dfd, err := unix.Openat(dirFd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	var candidates []string
	seen := 0
	err = readDirents(dfd, make([]byte, 32<<10), func(name string, typ uint8) bool {
		seen++
		if (typ == unix.DT_REG || typ == unix.DT_UNKNOWN) && maybeStaged(name) && stagedPattern.MatchString(name) {
			candidates = append(candidates, name)
		}
		if subdirs != nil && typ == unix.DT_DIR && !skipDirNames[name] {
			*subdirs = append(*subdirs, name)
		}
		return seen < sweepBudget
	})
	for _, name := range candidates {
		if removeIfStale(dirFd, name, now) {
			removed = append(removed, name)
		}
	}
	return removed, err
}

func removeIfStale(dirFd int, name string, now time.Time) bool {
	fd, err := unix.Openat(dirFd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		return false
	}
	if now.Sub(time.Unix(st.Ctim.Unix())) < staleAge {
		return false
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false // live: its writer holds the lock (EWOULDBLOCK), or we cannot tell
	}
	// Remove the name only while it still names the inode we locked.
	var there unix.Stat_t
	if unix.Fstatat(dirFd, name, &there, unix.AT_SYMLINK_NOFOLLOW) != nil || there.Dev != st.Dev || there.Ino != st.Ino {
		return false
	}
	return !errors.Is(unix.Unlinkat(dirFd, name, 0), unix.ENOENT)
}

// maybeStaged is the cheap test before the pattern: most names of a big
// directory fail at their first or last bytes.
func maybeStaged(name string) bool {
	return len(name) > 17 && name[0] == '.' && (strings.HasSuffix(name, ".demiurge-tmp") || strings.HasSuffix(name, ".tmp"))
}
