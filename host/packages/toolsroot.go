package packages

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"demiurge.dev/host/packages/installed"
)

// A core's tools directory is where an agent may write (an approved
// write_file, a terminal command): a symlinked agent/tools, slot or marker
// would carry install and remove out of the core. Every touch of it goes
// through an os.Root opened component by component, refusing symlinks.

// toolsBase is the directory the tools directory is opened from and the
// path below it: the core directory for a core, the state directory for
// the embedded core's stand-in.
func toolsBase(stateDir string, t installed.Target) (base, rel string, err error) {
	base = t.Key
	if t.Key == installed.EmbeddedCore {
		base = stateDir
	}
	rel, err = filepath.Rel(base, t.ToolsDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", "", fmt.Errorf("the tools directory %s is not inside %s; packages are installed only into the core's own directory", t.ToolsDir, base)
	}
	return base, rel, nil
}

// errNoTools says the tools directory does not exist (and create was false).
var errNoTools = errors.New("no tools directory")

// openTools opens the target's tools directory, creating the missing
// directories when create is set. A component that is a symlink or not a
// directory is refused.
func openTools(stateDir string, t installed.Target, create bool) (*os.Root, error) {
	base, rel, err := toolsBase(stateDir, t)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(base)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", base, err)
	}
	if rel == "." {
		return r, nil
	}
	at := base
	for _, comp := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, comp)
		next, err := openDirNoFollow(r, comp, at, create)
		r.Close()
		if err != nil {
			return nil, err
		}
		r = next
	}
	return r, nil
}

// openDirNoFollow opens the directory name of r as a root, creating it if
// asked; a symlink there is refused, also one swapped in between the check
// and the open.
func openDirNoFollow(r *os.Root, name, shown string, create bool) (*os.Root, error) {
	st, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, errNoTools
		}
		if err := r.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create %s: %w", shown, err)
		}
		st, err = r.Lstat(name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is a %s, not a directory; packages are installed only into a real directory of the core (a symlink there could carry the install out of it): refused", shown, kind(st))
	}
	next, err := r.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", shown, err)
	}
	opened, err := next.Stat(".")
	if err != nil || !os.SameFile(st, opened) {
		next.Close()
		return nil, fmt.Errorf("%s changed while it was opened: refused", shown)
	}
	return next, nil
}

func kind(st fs.FileInfo) string {
	if st.Mode()&fs.ModeSymlink != 0 {
		return "symlink"
	}
	return "non-directory (" + st.Mode().Type().String() + ")"
}

// readMarkerAt reads slot/package.json of the tools root without
// following a symlink at the slot or the marker.
func readMarkerAt(tools *os.Root, slot, shown string) (*installed.Marker, error) {
	st, err := tools.Lstat(slot)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is a %s, not a package slot", shown, kind(st))
	}
	f, err := tools.OpenFile(filepath.Join(slot, installed.MarkerName), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !fst.Mode().IsRegular() {
		return nil, fmt.Errorf("%s/%s is not a regular file", shown, installed.MarkerName)
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	return installed.ParseMarker(filepath.Join(shown, installed.MarkerName), b)
}
