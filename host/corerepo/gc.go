package corerepo

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"demiurge.dev/host/corerepo/corepath"
)

// staleTemp is how old a leftover temporary directory under trees/ (a
// Materialize or a collection that was killed) must be before it goes.
const staleTemp = time.Hour

// CollectTrees removes the read-only copies under trees/ that no one
// needs: not live's, not previous's, and not one a running host marks as
// in use (corepath.Use). A copy is removed only under its lock held
// exclusively, and it is first renamed out of its place, so a reader
// either holds the mark (and the copy stays) or finds no copy and makes
// it again. It returns the commits whose copies it removed; a copy it
// could not remove stays for the next collection.
func (r *Repo) CollectTrees() ([]string, error) {
	keep := map[string]bool{}
	for _, ref := range []string{RefLive, RefPrevious} {
		h, ok, err := r.Ref(ref)
		if err != nil {
			return nil, err
		}
		if ok {
			keep[h] = true
		}
	}
	dir := TreesDir(r.StateDir)
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".tmp-") || strings.HasPrefix(name, ".gc-") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTemp {
				removeReadOnly(filepath.Join(dir, name))
			}
			continue
		}
		if c, ok := strings.CutPrefix(name, ".use-"); ok {
			if _, err := os.Lstat(TreeDir(r.StateDir, c)); os.IsNotExist(err) {
				r.dropLock(c) // a mark left without a copy
			}
			continue
		}
		if !e.IsDir() || keep[name] || len(name) != 40 {
			continue
		}
		if r.collect(name) {
			removed = append(removed, name)
		}
	}
	return removed, nil
}

// collect removes commit's copy unless someone marks it in use.
func (r *Repo) collect(commit string) bool {
	lock := corepath.UseLock(r.StateDir, commit)
	f, ok := lockAlone(lock)
	if !ok {
		return false
	}
	defer f.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	gone := filepath.Join(TreesDir(r.StateDir), ".gc-"+commit+"-"+hex.EncodeToString(b[:]))
	if os.Rename(TreeDir(r.StateDir, commit), gone) != nil {
		return false
	}
	removeReadOnly(gone)
	// Unlinked while held: a reader blocked on this file finds it is no
	// longer the lock and takes the new one (corepath.Use).
	_ = os.Remove(lock)
	return true
}

// dropLock removes commit's lock file when no one holds it.
func (r *Repo) dropLock(commit string) {
	lock := corepath.UseLock(r.StateDir, commit)
	if f, ok := lockAlone(lock); ok {
		_ = os.Remove(lock)
		f.Close()
	}
}

// lockAlone takes lock exclusively without waiting: false when someone
// holds it (a host uses the copy, or another collector is at it).
func lockAlone(lock string) (*os.File, bool) {
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !corepath.SameFile(f, lock) {
		f.Close()
		return nil, false
	}
	return f, true
}
