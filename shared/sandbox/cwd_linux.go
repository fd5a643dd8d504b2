package sandbox

import (
	"bytes"
	"fmt"

	"golang.org/x/sys/unix"
)

// reenterCwd moves the working directory into this mount namespace. A
// launcher may start the helper in a directory it pinned by descriptor
// (the terminal does, so that a swap between its check and the start
// cannot move the command): that directory belongs to the launcher's
// mounts, which the kernel reports here as "(unreachable)/path", and
// names relative to it would miss the mounts just made (the masks over
// sensitive files, the read-only core). The same path is entered in this
// namespace and must be the same directory (device and inode), or the
// command does not run: a swap after the pin is refused, not followed.
func reenterCwd() error {
	var pinned unix.Stat_t
	if err := unix.Stat(".", &pinned); err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Getcwd(buf)
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	path := string(bytes.TrimSuffix(buf[:n], []byte{0}))
	path, _ = trimUnreachable(path)
	if len(path) == 0 || path[0] != '/' {
		return fmt.Errorf("working directory %q has no path in the sandbox", path)
	}
	if err := unix.Chdir(path); err != nil {
		return fmt.Errorf("enter the working directory %s: %w", path, err)
	}
	var now unix.Stat_t
	if err := unix.Stat(".", &now); err != nil {
		return fmt.Errorf("working directory %s: %w", path, err)
	}
	if now.Dev != pinned.Dev || now.Ino != pinned.Ino {
		return fmt.Errorf("working directory %s is not the directory the command was started in (replaced, or hidden by the sandbox)", path)
	}
	return nil
}

// trimUnreachable strips the prefix the kernel puts before a working
// directory outside this namespace's root.
func trimUnreachable(p string) (string, bool) {
	const prefix = "(unreachable)"
	if len(p) >= len(prefix) && p[:len(prefix)] == prefix {
		return p[len(prefix):], true
	}
	return p, false
}
