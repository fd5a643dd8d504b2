package sandbox

import (
	"errors"
	"fmt"
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
	if p.Mode.WritesWorkspace() {
		for _, q := range p.Protected {
			if err := checkProtectable(q); err != nil {
				return err
			}
			target, err := protectTarget(p.Workspace, q)
			if err != nil {
				return err
			}
			if target == "" {
				continue
			}
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

// checkProtectable refuses a protected path a bind mount cannot hold: a
// symlink (its name could be replaced) or a file with other hard links
// (writable through them).
func checkProtectable(q string) error {
	fi, err := os.Lstat(q)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("protected path %s is a symlink; it cannot be held read-only", q)
	}
	if st, ok := fi.Sys().(*unix.Stat_t); ok && fi.Mode().IsRegular() && st.Nlink > 1 {
		return fmt.Errorf("protected path %s has %d hard links; it cannot be held read-only", q, st.Nlink)
	}
	return nil
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
