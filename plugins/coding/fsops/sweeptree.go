package fsops

import (
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds of the sweep of a whole workspace: a plugin that starts in a big
// tree does not spend its first call walking all of it.
const (
	treeSweepDirs = 4096
	treeSweepTime = 2 * time.Second
)

// sweptRoots are the workspaces this process has swept: once per
// workspace per plugin process, so at plugin start as far as a workspace
// can tell.
var sweptRoots sync.Map

// sweepOnce sweeps the workspace tree for dead staged files the first
// time this process writes in it. A plugin killed mid-write leaves no
// staged file (they are anonymous until published), but one killed in the
// instant of publishing, or on a file system without O_TMPFILE, can; the
// write into that directory would sweep it, and this finds those in
// directories nobody writes to again.
func (w *Workspace) sweepOnce(now time.Time) {
	if _, seen := sweptRoots.LoadOrStore(w.rootPath, true); seen {
		return
	}
	w.sweepTree(now, treeSweepDirs, now.Add(treeSweepTime))
}

// sweepTree walks the workspace depth-first without following symlinks
// (a descriptor per level, so open files stay few), skipping VCS and
// dependency directories, within a directory count and a deadline. It
// returns the removed files, relative to the root.
func (w *Workspace) sweepTree(now time.Time, maxDirs int, deadline time.Time) []string {
	rootFd, err := unix.Open(w.rootPath, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(rootFd)
	var removed []string
	visited := 0
	var walk func(fd int, rel string)
	walk = func(fd int, rel string) {
		if visited >= maxDirs || time.Now().After(deadline) {
			return
		}
		visited++
		var subdirs []string
		names, _ := sweepDir(fd, now, &subdirs)
		for _, n := range names {
			removed = append(removed, filepath.Join(rel, n))
		}
		for _, s := range subdirs {
			sub, err := unix.Openat(fd, s, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			walk(sub, filepath.Join(rel, s))
			unix.Close(sub)
		}
	}
	walk(rootFd, ".")
	return removed
}
