package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// applyMounts runs in the helper, inside its own user and mount
// namespaces (created by the launcher): mounts there change nothing
// outside. It holds the protected paths read-only, and hides sensitive files and directories of the workspace
// and a few system secrets behind empty read-only mounts.
func applyMounts(p Policy) error {
	// Nothing done here may propagate back to the launcher's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := mountProc(); err != nil {
		return fmt.Errorf("mount /proc of the sandbox's pid namespace: %w", err)
	}
	if err := mountTmp(p.TmpDir, p.tmpMiB()); err != nil {
		return err
	}
	if p.Mode.WritesWorkspace() {
		var targets []string
		for _, q := range p.Protected {
			if err := checkProtectable(p, q); err != nil {
				return err
			}
			target, err := protectTarget(p.Workspace, q)
			if err != nil {
				return err
			}
			if target != "" {
				targets = append(targets, target)
			}
		}
		owned, err := hostOwnedTargets(p)
		if err != nil {
			return err
		}
		targets = append(targets, owned...)
		if err := pinAncestors(p.Workspace, targets); err != nil {
			return err
		}
		// What the command may write inside a host-owned directory (its
		// runtime home) is its own mount first, so that the recursive
		// read-only bind of the directory carries it along writable.
		for _, w := range p.Writable {
			if underAny(owned, w) {
				if err := bindMount(w, w, false); err != nil && !errors.Is(err, unix.ENOENT) {
					return fmt.Errorf("keep %s writable: %w", w, err)
				}
			}
		}
		for _, target := range targets {
			if err := bindMount(target, target, true); err != nil {
				return fmt.Errorf("hold %s read-only: %w", target, err)
			}
		}
	}
	hidden := slices.Clone(p.Hidden)
	if !p.HiddenListed {
		var err error
		if hidden, err = SensitiveIn(p.Workspace); err != nil {
			return fmt.Errorf("find sensitive files: %w", err)
		}
	}
	if err := coverPrivate(p); err != nil {
		return err
	}
	for _, s := range systemSecrets {
		if _, err := os.Lstat(s); err == nil {
			hidden = append(hidden, s)
		}
	}
	for _, h := range hidden {
		if err := mask(h); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("hide %s: %w", h, err)
		}
	}
	return nil
}

// hostOwnedTargets are the host-owned paths inside the workspace that
// exist; a symlink among them is refused (its name could be replaced).
func hostOwnedTargets(p Policy) ([]string, error) {
	ws := filepath.Clean(p.Workspace)
	var out []string
	for _, h := range p.HostOwned {
		h = filepath.Clean(h)
		if h == ws || !within(ws, h) {
			continue // outside the workspace nothing is writable anyway
		}
		fi, err := os.Lstat(h)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("host-owned path %s is a symlink inside the workspace; it cannot be held read-only: replace it with the directory", h)
		}
		out = append(out, h)
	}
	return out, nil
}

// underAny reports whether p lies strictly under one of dirs.
func underAny(dirs []string, p string) bool {
	for _, d := range dirs {
		if p != d && within(d, filepath.Clean(p)) {
			return true
		}
	}
	return false
}

// pinAncestors makes every directory between the workspace and a
// protected path a mount point (bound on itself, still writable): the
// kernel refuses to rename or remove a mount point, so a command cannot
// move .git or agent/ aside, with the read-only mounts inside, and put a
// directory of its own in its place. Outermost first, so that the
// read-only mounts made after them stay on top.
func pinAncestors(workspace string, targets []string) error {
	ws := filepath.Clean(workspace)
	seen := map[string]bool{}
	var dirs []string
	for _, t := range targets {
		for d := filepath.Dir(filepath.Clean(t)); d != ws && within(ws, d); d = filepath.Dir(d) {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return len(a) - len(b) })
	for _, d := range dirs {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("the parent %s of a protected path is not a directory (a symlink?); it cannot be pinned: %v", d, err)
		}
		if err := unix.Mount(d, d, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pin %s (the parent of a protected path) in place: %w", d, err)
		}
	}
	return nil
}

// checkProtectable refuses a protected path a bind mount cannot hold: a
// symlink (its name could be replaced), a file with other hard links
// (writable through them: the mount holds one name, not the inode), and a
// directory holding such a file or a symlink to a writable place of the
// workspace. Protected directories are small (a core's tools, .git/hooks);
// a walk past maxProtectedEntries is refused rather than half checked.
func checkProtectable(p Policy, q string) error {
	var st unix.Stat_t
	err := unix.Lstat(q, &st)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return fmt.Errorf("protected path %s is a symlink; it cannot be held read-only", q)
	case unix.S_IFREG:
		return checkLinks(q, &st)
	case unix.S_IFDIR:
		n := 0
		return filepath.WalkDir(q, func(e string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if n++; n > maxProtectedEntries {
				return fmt.Errorf("protected directory %s has more than %d entries; it cannot be checked for hard links", q, maxProtectedEntries)
			}
			if e == q || d.IsDir() {
				return nil
			}
			var est unix.Stat_t
			if err := unix.Lstat(e, &est); err != nil {
				return err
			}
			if est.Mode&unix.S_IFMT == unix.S_IFLNK {
				return checkInnerSymlink(p, q, e)
			}
			return checkLinks(e, &est)
		})
	}
	return nil
}

// maxProtectedEntries bounds the walk of one protected directory.
const maxProtectedEntries = 10000

// checkLinks refuses a regular file with more than one name.
func checkLinks(q string, st *unix.Stat_t) error {
	if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
		return fmt.Errorf("protected path %s has %d hard links, and a hard link is writable under its other name: remove the other names (find %s -samefile %s) or use sandbox mode read-only", q, st.Nlink, filepath.Dir(q), q)
	}
	return nil
}

// checkInnerSymlink refuses a symlink inside protected directory dir that
// resolves to a writable place: the workspace outside every protected path.
func checkInnerSymlink(p Policy, dir, link string) error {
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		// Dangling: a command could create what it names.
		if target, err = os.Readlink(link); err != nil {
			return err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(link), target)
		}
		target = filepath.Clean(target)
	}
	ws := filepath.Clean(p.Workspace)
	if !within(ws, target) {
		return nil
	}
	for _, q := range p.Protected {
		if within(filepath.Clean(q), target) {
			return nil
		}
	}
	return fmt.Errorf("protected path %s holds the symlink %s to %s, which a command can write: replace the symlink with the file", dir, link, target)
}

// mask hides a file behind /dev/null and a directory behind an empty
// read-only tmpfs.
func mask(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		return unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=000")
	case fi.Mode()&os.ModeSymlink != 0:
		// A symlink is resolved by the mount: hide what it points at
		// only if that stays sensitive; its name alone reveals nothing.
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil // dangling: nothing to read
		}
		return mask(target)
	default:
		return bindMount("/dev/null", p, true)
	}
}

// bindMount binds src on dst, read-only when asked. A read-only remount
// inside a user namespace must keep the flags the kernel locked on the
// original mount (nosuid, nodev, noexec, ...), or it fails.
func bindMount(src, dst string, readOnly bool) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if !readOnly {
		return nil
	}
	return remountReadOnly(dst)
}

// remountReadOnly makes the mount at dst read-only, keeping the flags the
// kernel locked on it.
func remountReadOnly(dst string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	return unix.Mount("", dst, "", flags, "")
}
