package frontargs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// CheckStateDir refuses a state directory that another user could
// replace or fill: the state holds the core that decides what runs, the
// installed plugins, the store and the host's socket, so whoever can
// rename an entry of it (or of a directory above it) can put their own
// host, core or plugin in the operator's place. Every directory on the
// way, symlinks followed, must belong to this user or root and be
// writable by no one else unless it is sticky (as /tmp: others cannot
// rename what is not theirs there); the state directory itself must be
// writable by no one else at all. A part not made yet ends the walk (the
// demiurge that makes it makes it 0700).
func CheckStateDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("state directory %q: not an absolute path", dir)
	}
	uid := uint32(os.Getuid())
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(dir), "/"), "/")
	cur := "/"
	if err := checkStateComponent(cur, uid, len(rest) == 1 && rest[0] == ""); err != nil {
		return refusedState(dir, err)
	}
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return refusedState(dir, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			// A link is replaced only through its directory, checked
			// already; its target is walked as the path goes on.
			if hops++; hops > 40 {
				return refusedState(dir, errors.New("too many symbolic links"))
			}
			target, err := os.Readlink(next)
			if err != nil {
				return refusedState(dir, err)
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = append(strings.Split(target, "/"), rest...)
			continue
		}
		cur = next
		if err := checkStateComponent(cur, uid, len(rest) == 0); err != nil {
			return refusedState(dir, err)
		}
	}
	return nil
}

// checkStateComponent judges one directory on the state's way; last is
// the state directory itself.
func checkStateComponent(path string, uid uint32, last bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot tell its owner", path)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	if st.Uid != uid && st.Uid != 0 {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d)", path, st.Uid, uid)
	}
	perm := fi.Mode()
	if perm&0o022 != 0 && (last || perm&fs.ModeSticky == 0) {
		return fmt.Errorf("%s can be written by other users (mode %04o)", path, uint32(perm.Perm())|stickyBit(perm))
	}
	return nil
}

func stickyBit(m fs.FileMode) uint32 {
	if m&fs.ModeSticky != 0 {
		return 0o1000
	}
	return 0
}

func refusedState(dir string, err error) error {
	return fmt.Errorf("state directory %s refused: %v; another user could put their own host, core or plugins in it (use a directory only you can write: --state, DEMIURGE_STATE or XDG_STATE_HOME)", dir, err)
}
