package shellguard

import (
	"io/fs"
	"sync"
	"syscall"
	"time"

	"demiurge.dev/shared/fileid"
)

// The review of a repository is cached per cwd across checks, because a
// session runs git status again and again: an entry holds a stamp of
// every path the review looked at (present or not) and stays good while
// each still has the fileid.ID lstat gave (device, inode, type, size, mtime,
// ctime). Adding or removing a hook changes the hooks directory's ctime;
// editing or replacing a config file changes its stamp, even with its size
// and mtime put back; a symlink among the files read, a file whose ctime
// is not yet settled, or a change during the review, leaves the review
// uncached. Only the real file system (OSFiles) is cached.
const maxRepoCache = 256

var repoCache struct {
	sync.Mutex
	m map[string]cachedRepo
}

type cachedRepo struct {
	reasons []string
	stamps  []stamp
	// found is the repository the review found from the cwd: its walk's
	// paths are among the stamps, so it holds while they do, and the
	// content rules (gitContent) need not walk again.
	found    foundGitDir
	hasFound bool
}

// stamp is what lstat said about a path.
type stamp struct {
	path   string
	exists bool
	id     fileid.ID
}

func stampOf(files Files, p string) stamp {
	fi, err := files.Lstat(p)
	if err != nil {
		return stamp{path: p}
	}
	id, _ := fileid.FromInfo(fi)
	return stamp{path: p, exists: true, id: id}
}

// reviewRepoCached is findAndReviewRepo through the cache.
func (g *guard) reviewRepoCached() []string {
	if _, real := g.files.(OSFiles); !real {
		return g.findAndReviewRepo()
	}
	repoCache.Lock()
	c, ok := repoCache.m[g.cwd]
	repoCache.Unlock()
	if ok && stampsHold(g.files, c.stamps) {
		if c.hasFound {
			g.remember(g.cwd, c.found)
		}
		return c.reasons
	}
	// The walk to the repository is among the stamps: nothing in a check
	// asks for the cwd's repository before its review (checkGit reviews
	// first), so findAndReviewRepo walks through rec.
	rec := &recordingFiles{inner: g.files, seen: map[string]bool{}}
	outer := g.files
	g.files = rec
	reasons := g.findAndReviewRepo()
	g.files = outer
	if rec.uncacheable || !stampsHold(outer, rec.stamps) {
		return reasons
	}
	repoCache.Lock()
	if repoCache.m == nil || len(repoCache.m) >= maxRepoCache {
		repoCache.m = map[string]cachedRepo{}
	}
	found, hasFound := g.gitDirs[g.cwd]
	repoCache.m[g.cwd] = cachedRepo{reasons: reasons, stamps: rec.stamps, found: found, hasFound: hasFound}
	repoCache.Unlock()
	return reasons
}

func stampsHold(files Files, stamps []stamp) bool {
	for _, s := range stamps {
		if stampOf(files, s.path) != s {
			return false
		}
	}
	return true
}

// recordingFiles stamps every path before it is looked at.
type recordingFiles struct {
	inner       Files
	stamps      []stamp
	seen        map[string]bool
	uncacheable bool
}

func (r *recordingFiles) record(p string, followed bool) {
	if r.seen[p] {
		return
	}
	r.seen[p] = true
	s := stampOf(r.inner, p)
	// A file read through a symlink could change behind an unchanged
	// link: such a review is not cached. Nor is one that read a file
	// changed too recently for its ctime to tell a later change apart.
	if followed && s.exists && s.id.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		r.uncacheable = true
	}
	if s.exists && !settled(s.id, time.Now()) {
		r.uncacheable = true
	}
	r.stamps = append(r.stamps, s)
}

func (r *recordingFiles) Lstat(name string) (fs.FileInfo, error) {
	r.record(name, false)
	return r.inner.Lstat(name)
}

func (r *recordingFiles) Readlink(name string) (string, error) {
	r.record(name, false)
	return r.inner.Readlink(name)
}

func (r *recordingFiles) ReadDir(name string, max int) ([]fs.DirEntry, error) {
	r.record(name, true)
	return r.inner.ReadDir(name, max)
}

func (r *recordingFiles) ReadFile(name string, max int64) ([]byte, error) {
	r.record(name, true)
	return r.inner.ReadFile(name, max)
}
