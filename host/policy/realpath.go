package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSymlinkHops is the kernel's own limit (MAXSYMLINKS).
const maxSymlinkHops = 40

// errSymlinkLoop is returned for a chain of links the kernel would refuse.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// realPath follows every symlink in the absolute path p, as the kernel
// would when the file is opened or created: component by component, a
// link's target replacing it (".." in a target is taken in the real
// directory), so a dangling link still leads to where a create would
// go. The part from the first missing component on is kept lexically.
// It reads the file system; it opens nothing.
func realPath(p string) (string, error) {
	if noSymlinks(p) {
		return p, nil // nothing to follow (realpath_fast.go)
	}
	return walkRealPath(p)
}

// walkRealPath is realPath by lstat, component by component.
func walkRealPath(p string) (string, error) {
	done := string(filepath.Separator)
	rest := splitPath(p)
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := join(done, c)
		link, err := isLink(next)
		if err != nil {
			// Not there: nothing further can be a link.
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if !link {
			done = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", errSymlinkLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			done = string(filepath.Separator)
		}
		rest = append(splitPath(target), rest...)
	}
	return done, nil
}

// join is filepath.Join(dir, name) for a clean absolute dir and a name
// that is one plain component (not "", "." or ".."), as realPath has
// them, without Join's cleaning pass: every call resolves its paths here.
func join(dir, name string) string {
	if dir == string(filepath.Separator) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// isLink is os.Lstat's answer to "is it a symlink", without the FileInfo
// it allocates; like os.Lstat it retries a call EINTR cut short.
func isLink(path string) (bool, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, err
		}
		return st.Mode&syscall.S_IFMT == syscall.S_IFLNK, nil
	}
}

func splitPath(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}

// RealPath is a path resolved through symlinks, as the call will reach
// it, and where that lies with respect to the workspace's real root.
type RealPath struct {
	Abs    string
	Inside bool
	// Rel is Abs relative to the real root, slash-separated; empty when
	// outside.
	Rel string
}

// Real resolves the absolute clean path abs through symlinks and places
// it in the workspace (whose root is itself resolved). A path that cannot
// be resolved (a loop, an unreadable link) counts as outside: fail
// closed.
func (w Workspace) Real(abs string) RealPath {
	root := w.realRoot
	if root == "" {
		root = w.Root
		if r, err := realPath(root); err == nil {
			root = r
		}
	}
	real, err := realPath(abs)
	if err != nil {
		return RealPath{Abs: abs}
	}
	rel, inside := within(root, real)
	return RealPath{Abs: real, Inside: inside, Rel: rel}
}
