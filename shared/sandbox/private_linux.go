package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// coverPrivate hides each HostPrivate directory inside the workspace (the
// state: the host socket's token, every session's store, keys, logs,
// other commands' homes) behind an empty read-only tmpfs, with the
// command's own paths there (its TmpDir, Writable and ReadOnly paths)
// bound back. A closed world: what the host creates there after the
// command started, or replaces by a rename, is not under the cover's
// root and so never visible, where hiding each entry found at the start
// left both in view. Outside the workspace Landlock already grants
// nothing there.
func coverPrivate(p Policy) error {
	ws := filepath.Clean(p.Workspace)
	keep := append(append([]string{p.TmpDir}, p.Writable...), p.ReadOnly...)
	for _, d := range p.HostPrivate {
		d = filepath.Clean(d)
		if !within(ws, d) {
			continue
		}
		fi, err := os.Lstat(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("hide the host's private %s: %w", d, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("the host's private %s is not a directory (a symlink?); it cannot be hidden", d)
		}
		if slices.ContainsFunc(keep, func(k string) bool { return k != "" && within(filepath.Clean(k), d) }) {
			continue // given to the command whole
		}
		if err := cover(d, keptUnder(d, keep)); err != nil {
			return fmt.Errorf("hide the host's private %s: %w", d, err)
		}
	}
	return nil
}

// keptUnder are the paths of keep strictly under d that exist, outermost
// only (a clone takes what is mounted beneath it along).
func keptUnder(d string, keep []string) []string {
	var under []string
	for _, k := range keep {
		if k = filepath.Clean(k); k != d && within(d, k) {
			under = append(under, k)
		}
	}
	slices.Sort(under) // a parent sorts before what lies under it
	var out []string
	for _, k := range under {
		if len(out) > 0 && within(out[len(out)-1], k) {
			continue
		}
		if fi, err := os.Lstat(k); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue // nothing to give back, or a name that could be replaced
		}
		out = append(out, k)
	}
	return out
}

// cover clones each kept path's mounts, puts the tmpfs over d, makes the
// kept paths' names in it and moves the clones there, then makes the
// tmpfs read-only. A clone carries the mount flags of where it came
// from; what the command may only read, Landlock holds read-only.
func cover(d string, kept []string) error {
	type clone struct {
		path string
		fd   int
		dir  bool
	}
	var clones []clone
	defer func() {
		for _, c := range clones {
			unix.Close(c.fd)
		}
	}()
	for _, k := range kept {
		fi, err := os.Lstat(k)
		if err != nil {
			return err
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, k, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			return fmt.Errorf("keep %s: %w", k, err)
		}
		clones = append(clones, clone{k, fd, fi.IsDir()})
	}
	if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64k,mode=0711"); err != nil {
		return err
	}
	for _, c := range clones {
		if err := mountPoint(c.path, c.dir); err != nil {
			return fmt.Errorf("keep %s: %w", c.path, err)
		}
		if err := unix.MoveMount(c.fd, "", unix.AT_FDCWD, c.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("keep %s: %w", c.path, err)
		}
	}
	return remountReadOnly(d)
}

// mountPoint makes path (under a cover) and the directories leading
// to it, each traversable only.
func mountPoint(path string, dir bool) error {
	parent := filepath.Dir(path)
	if err := os.MkdirAll(parent, 0o711); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(path, 0o711)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}
