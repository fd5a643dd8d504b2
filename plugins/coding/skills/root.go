package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/shared/skillpath"
)

// ErrNoRoot is the answer of every skill tool when the host handed no
// skills root: the core has no skills.
var ErrNoRoot = errors.New("this agent core has no skills root (slots.skills); there are no skills")

// Root is one call's view of the skills root.
type Root struct {
	ws   *fsops.Workspace // reads and atomic writes
	dir  *os.Root         // listings, stats and removals
	path string
}

// Open opens the skills root the host handed the call.
func Open(path string) (*Root, error) {
	if path == "" {
		return nil, ErrNoRoot
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("skills root %q is not absolute; this is a host bug", path)
	}
	ws, err := fsops.OpenWorkspace(path, nil)
	if err != nil {
		return nil, fmt.Errorf("the skills root cannot be opened: %w", err)
	}
	dir, err := os.OpenRoot(ws.Root())
	if err != nil {
		ws.Close()
		return nil, fmt.Errorf("the skills root cannot be opened: %w", err)
	}
	return &Root{ws: ws, dir: dir, path: ws.Root()}, nil
}

// Close releases the root's descriptors.
func (r *Root) Close() error {
	return errors.Join(r.dir.Close(), r.ws.Close())
}

// Path is the root directory, symlinks resolved.
func (r *Root) Path() string { return r.path }

// readSkillFile reads name/SKILL.md, bounded, without following a symlink
// at the file itself and without blocking on a FIFO.
func (r *Root) readSkillFile(name string) ([]byte, error) {
	rel := name + "/" + skillpath.FileName
	f, err := r.dir.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: there is no skill %q (no %s); skills_list shows the skills", fs.ErrNotExist, name, rel)
		}
		return nil, fmt.Errorf("%s cannot be opened: %v", rel, reason(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSkillFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSkillFile {
		return nil, fmt.Errorf("%s is over %d bytes", rel, MaxSkillFile)
	}
	return data, nil
}

// exists reports whether the skill name has its SKILL.md (a regular file).
func (r *Root) exists(name string) (bool, error) {
	st, err := r.dir.Lstat(name + "/" + skillpath.FileName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("skill %q: %v", name, reason(err))
	case !st.Mode().IsRegular():
		return false, fmt.Errorf("skill %q: %s is not a regular file", name, skillpath.FileName)
	}
	return true, nil
}

func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
