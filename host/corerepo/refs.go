package corerepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Update is one ref move: from Old (the value the mover read; "" for a ref
// that must not exist yet) to New.
type Update struct {
	Ref, Old, New string
}

// MovedError says that a ref was not where the mover read it: someone
// else moved it in between. Nothing was moved.
type MovedError struct {
	Ref, Want, Have string
}

func (e *MovedError) Error() string {
	have := e.Have
	if have == "" {
		have = "nothing"
	}
	want := e.Want
	if want == "" {
		want = "no ref"
	}
	return fmt.Sprintf("%s moved under us: it is %s, not %s as read; nothing was moved (look at `demiurge core log` and try again)", e.Ref, short(have), short(want))
}

// ErrLocked is returned when another writer holds a ref's lock file.
var ErrLocked = errors.New("ref is locked by another writer")

// Move applies updates all or nothing, each compare-and-swap on its old
// value, under git's own lock files (<ref>.lock, created exclusively), so
// that a git process writing the same refs is serialised with the host.
// Refs are renamed into place in the given order: put live last, so that a
// crash between two renames never leaves live ahead of previous.
func (r *Repo) Move(updates ...Update) error {
	order := make([]int, len(updates))
	for i := range order {
		order[i] = i
	}
	// Locks are taken in name order, so two movers never wait on each other.
	sort.Slice(order, func(a, b int) bool { return updates[order[a]].Ref < updates[order[b]].Ref })
	locks := map[string]*os.File{}
	release := func() {
		for ref, f := range locks {
			f.Close()
			os.Remove(r.lockPath(ref))
		}
	}
	for _, i := range order {
		u := updates[i]
		if err := plumbing.ReferenceName(u.Ref).Validate(); err != nil || !strings.HasPrefix(u.Ref, "refs/demiurge/") {
			release()
			return fmt.Errorf("ref %q: not a valid ref name", u.Ref)
		}
		p := r.lockPath(u.Ref)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			release()
			return err
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			release()
			return fmt.Errorf("%s: %w (%s exists; remove it if no git or demiurge process is running)", u.Ref, ErrLocked, p)
		}
		if err != nil {
			release()
			return fmt.Errorf("lock %s: %w", u.Ref, err)
		}
		locks[u.Ref] = f
	}
	for _, u := range updates {
		have, _, err := r.Ref(u.Ref)
		if err != nil {
			release()
			return err
		}
		if have != u.Old {
			release()
			return &MovedError{Ref: u.Ref, Want: u.Old, Have: have}
		}
	}
	for _, u := range updates {
		f := locks[u.Ref]
		if _, err := f.WriteString(u.New + "\n"); err != nil {
			release()
			return fmt.Errorf("write %s: %w", u.Ref, err)
		}
		if err := f.Sync(); err != nil {
			release()
			return fmt.Errorf("write %s: %w", u.Ref, err)
		}
	}
	for _, u := range updates {
		locks[u.Ref].Close()
		if err := os.Rename(r.lockPath(u.Ref), filepath.Join(r.GitDir(), filepath.FromSlash(u.Ref))); err != nil {
			delete(locks, u.Ref)
			release()
			return fmt.Errorf("move %s: %w", u.Ref, err)
		}
		delete(locks, u.Ref)
	}
	return nil
}

func (r *Repo) lockPath(ref string) string {
	return filepath.Join(r.GitDir(), filepath.FromSlash(ref)+".lock")
}
