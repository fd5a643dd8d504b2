package policy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The operator's own files (the approvals file, the MCP private-allowance
// file, the path-scoped grants file) live in the user's configuration
// directory and say what no core may say for itself. One reader serves
// them all, so that each refuses a file an agent could have written in the
// same way.

// OperatorFileMax bounds an operator file's read.
const OperatorFileMax = 64 << 10

// AgentDir is a directory an agent can write (the workspace, the core, the
// state directory), named for the error that refuses a file inside it.
type AgentDir struct {
	Name, Path string
}

// OperatorConfigFile is name in the host's configuration directory
// (os.UserConfigDir()/demiurge), "" when the user has none.
func OperatorConfigFile(name string) string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "demiurge", name)
}

// ReadOperatorFile reads the operator file file (what names it in errors),
// refusing one an agent could have written: a symlink or not a regular
// file, not the user's, writable by others or in a directory writable by
// others, or lying (as written or as its directory's symlinks lead) in any
// of off. A missing file is nil, nil; "" is no file.
func ReadOperatorFile(file, what string, off []AgentDir) ([]byte, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // no file, nothing granted, wherever it would be
	}
	if err == nil {
		if testHookOperatorFileOpened != nil {
			testHookOperatorFileOpened()
		}
		if perr := OperatorFilePlace(file, what, off); perr != nil {
			f.Close()
			return nil, perr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (it must be a regular file, not a symlink)", file, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := ownedByUser(file, fi, false); err != nil {
		return nil, err
	}
	// The place was judged by path after the open: a symlink on the way
	// retargeted in between (by whoever may write the directory holding
	// it, which the place check does not cover) would have it judge
	// another file than the one opened. So the opened file's own place
	// (where the kernel says the descriptor's file is) is judged too.
	if opened, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd())); err == nil && opened != file && filepath.IsAbs(opened) {
		if perr := OperatorFilePlace(opened, what, off); perr != nil {
			return nil, perr
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, OperatorFileMax+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > OperatorFileMax {
		return nil, fmt.Errorf("%s is over %d bytes", file, OperatorFileMax)
	}
	return data, nil
}

// testHookOperatorFileOpened runs between the open and the checks; tests
// retarget a symlink there.
var testHookOperatorFileOpened func()

// OperatorFilePlace refuses a location an agent can reach: inside one of
// off, or under a directory that someone else may write.
func OperatorFilePlace(file, what string, off []AgentDir) error {
	if !filepath.IsAbs(file) {
		return fmt.Errorf("the %s %q must be an absolute path", what, file)
	}
	real := file
	if r, err := filepath.EvalSymlinks(filepath.Dir(file)); err == nil {
		real = filepath.Join(r, filepath.Base(file))
	}
	for _, d := range off {
		if d.Path == "" {
			continue
		}
		rd := d.Path
		if r, err := filepath.EvalSymlinks(d.Path); err == nil {
			rd = r
		}
		if inDir(file, d.Path) || inDir(real, rd) || inDir(real, d.Path) || inDir(file, rd) {
			return fmt.Errorf("the %s %s lies inside the %s %s, where an agent may write; it must be outside every workspace, core and state directory", what, file, d.Name, d.Path)
		}
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err == nil {
			if err := ownedByUser(dir, fi, true); err != nil {
				return err
			}
		}
		if dir == filepath.Dir(dir) || dir == filepath.Dir(filepath.Dir(real)) {
			break // the file's directory and its parent: the rest is the system's
		}
	}
	return nil
}

// ownedByUser refuses what another user owns or may write (a directory
// with the sticky bit, like /tmp, is still refused: others may create in
// it).
func ownedByUser(path string, fi os.FileInfo, dir bool) error {
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others (mode %v); only its owner may write it: chmod go-w %s", path, fi.Mode().Perm(), path)
	case st != nil && int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s is not owned by the user running demiurge", path)
	}
	return nil
}

func inDir(p, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
