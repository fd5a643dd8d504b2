package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// maxWorkspaceRules bounds the rules a workspace granted around hidden
// paths takes (one per entry on the way to them); past it the plugin is
// not started rather than granted more.
const maxWorkspaceRules = 4096

// workspaceRules grants r on a toolset plugin's workspace except on the
// hidden paths (nothing) and the read-only ones (read). When none lies
// beneath the workspace, that is one rule for the workspace. Else the
// workspace and each directory on the way to one are only listed (list: their entries' names, the hidden
// one's included; Landlock's rights pass down a hierarchy, so nothing
// beneath a listed directory opens by that rule) and every other entry of
// theirs gets r. Entries are opened without following a symbolic link
// (O_PATH|O_NOFOLLOW, from their directory's descriptor) and the rules
// name those descriptors (/proc/self/fd/N), so an entry swapped for a
// link to elsewhere between the listing and the rule grants nothing
// there; a link is skipped (the kernel checks the file it leads to, which
// is granted only when it is in the workspace). An entry made in a listed
// directory after the start is not reachable, and nothing is written in
// one. release closes the descriptors once the domain is made.
func workspaceRules(root string, hidden, readOnly []string, r, read, list landlock.AccessFSSet) (rules []landlock.Rule, release func(), err error) {
	var fds []int
	release = func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, release, fmt.Errorf("the plugin's workspace %s: %w", root, err)
	}
	var under []mark // each hidden or read-only path beneath it, by name
	for i, h := range append(slices.Clone(hidden), readOnly...) {
		ro := i >= len(hidden)
		if h == "" || !filepath.IsAbs(h) {
			continue
		}
		if hr, err := filepath.EvalSymlinks(h); err == nil {
			h = hr
		} // else a path not there yet: hidden as named
		rel, err := filepath.Rel(real, filepath.Clean(h))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		if rel == "." {
			if ro {
				r = read // the workspace is read-only as a whole
				continue
			}
			return nil, release, nil // the workspace is hidden as a whole
		}
		under = append(under, mark{strings.Split(rel, "/"), ro})
	}
	dfd, err := unix.Open(real, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, release, fmt.Errorf("the plugin's workspace %s: %w", root, err)
	}
	fds = append(fds, dfd)
	if len(under) == 0 {
		return []landlock.Rule{landlock.PathAccess(r, fdPath(dfd))}, release, nil
	}
	var walk func(dfd int, under []mark, r landlock.AccessFSSet) error
	walk = func(dfd int, under []mark, r landlock.AccessFSSet) error {
		rules = append(rules, landlock.PathAccess(list, fdPath(dfd)))
		names, err := dirNames(dfd)
		if err != nil {
			return err
		}
		for _, name := range names {
			var next []mark
			hiddenHere, roHere := false, false
			for _, u := range under {
				if u.parts[0] == name {
					switch {
					case len(u.parts) > 1:
						next = append(next, mark{u.parts[1:], u.ro})
					case u.ro:
						roHere = true
					default:
						hiddenHere = true
					}
				}
			}
			if hiddenHere {
				continue
			}
			er := r
			if roHere {
				er = read
				next = slices.DeleteFunc(next, func(m mark) bool { return m.ro }) // read-only beneath as a whole
			}
			if len(rules) >= maxWorkspaceRules {
				return fmt.Errorf("the workspace has too many entries on the way to %d hidden path(s) to confine the plugin around them (more than %d)", len(under), maxWorkspaceRules)
			}
			fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue // gone: nothing to grant
			}
			fds = append(fds, fd)
			var st unix.Stat_t
			if unix.Fstat(fd, &st) != nil {
				continue
			}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFLNK:
				continue
			case unix.S_IFDIR:
				if len(next) > 0 {
					if err := walk(fd, next, er); err != nil {
						return err
					}
					continue
				}
				rules = append(rules, landlock.PathAccess(er, fdPath(fd)))
			default:
				if len(next) == 0 {
					rules = append(rules, landlock.PathAccess(er&rightsFile, fdPath(fd)))
				}
			}
		}
		return nil
	}
	if err := walk(dfd, under, r); err != nil {
		return nil, release, err
	}
	return rules, release, nil
}

// mark is a hidden or read-only path beneath the workspace, by name.
type mark struct {
	parts []string
	ro    bool
}

// fdPath names an open descriptor of this process.
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// dirNames lists the directory open (O_PATH) as dfd.
func dirNames(dfd int) ([]string, error) {
	fd, err := unix.Openat(dfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "dir")
	defer f.Close()
	return f.Readdirnames(-1)
}
