package corepath

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// UseLock is the lock file whose shared flock marks a commit's read-only
// copy as in use (a running host's core). The collector removes a copy
// only while it holds the lock exclusively, so never under a reader.
func UseLock(stateDir, commit string) string {
	return filepath.Join(TreesDir(stateDir), ".use-"+commit)
}

// Use marks commit's copy as in use until release is called: take it
// before reading the copy (or making it), hold it while the copy's
// files may be read (a host's lifetime: its slots and tools run from
// there). The copy may be absent when Use returns (the collector removed
// it first); the caller then makes it, under the mark.
func Use(stateDir, commit string) (release func(), err error) {
	if !commitID.MatchString(commit) {
		return nil, fmt.Errorf("%q is not a commit id", commit)
	}
	if err := os.MkdirAll(TreesDir(stateDir), 0o700); err != nil {
		return nil, err
	}
	p := UseLock(stateDir, commit)
	for range 100 {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			f.Close()
			return nil, err
		}
		// The collector unlinks the lock file of a copy it removed: a
		// lock taken on that unlinked file marks nothing; take a new one.
		if SameFile(f, p) {
			return func() { f.Close() }, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: could not mark the core's copy as in use", p)
}

// SameFile says the open f is still the file at path p.
func SameFile(f *os.File, p string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(p)
	return err == nil && os.SameFile(a, b)
}
