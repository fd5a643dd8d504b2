package fsops

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// hostStateFile marks a demiurge host's state directory: the runtime store
// every tool call is audited to, which the host opens before any call runs
// (toolhost.Host.Store). A state directory inside the workspace (the `make
// run` layout, a workspace of $HOME) holds every session, the host's logs
// and keys: read_file asks the operator for a path there (the host knows
// its state), and search_files, whose walk the host does not see, leaves
// such a directory out and refuses to start inside one.
const hostStateFile = "demiurge.db"

// isHostStateDir reports whether the directory name in dirfd holds the
// marker. Any kind of entry counts: a mistake hides a directory, never
// shows one.
func isHostStateDir(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name+"/"+hostStateFile, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// inHostState reports whether the real path rel (relative to the root) is
// a host state directory or lies in one below the root. The root itself is
// not judged: a workspace that is a state directory has nothing to hide
// itself from.
func (w *Workspace) inHostState(rel string, isDir bool) bool {
	if !isDir {
		rel = filepath.Dir(rel)
	}
	if rel == "." || rel == "" {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		if _, err := w.root.Lstat(filepath.Join(append(parts[:i+1:i+1], hostStateFile)...)); err == nil {
			return true
		}
	}
	return false
}

// refuseHostState refuses a search that starts at or inside a host state
// directory; f is the opened start, judged by its real path.
func (w *Workspace) refuseHostState(p string, f *os.File, isDir bool) error {
	real, err := fdPath(f)
	if err != nil {
		return fmt.Errorf("%s: resolve real path: %w", p, err)
	}
	if rel, inside := w.relToRoot(real); inside && w.inHostState(rel, isDir) {
		return refuse(p, ErrSensitive, "lies in the host's state directory (sessions, logs, keys); it is not searched")
	}
	return nil
}
