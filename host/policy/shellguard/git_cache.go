package shellguard

import (
	"errors"
	"io/fs"
	"path"
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
	rec := &recordingFiles{inner: g.files, seen: map[string]int{}}
	outer := g.files
	g.files = rec
	reasons := g.findAndReviewRepo()
	g.files = outer
	if rec.uncacheable {
		return reasons
	}
	// The anchors are stamped before the recorded stamps are checked
	// again: see anchoredStamps.
	stamps, ok := anchoredStamps(outer, rec.stamps, time.Now())
	if !ok || !stampsHold(outer, rec.stamps) {
		return reasons
	}
	repoCache.Lock()
	if repoCache.m == nil || len(repoCache.m) >= maxRepoCache {
		repoCache.m = map[string]cachedRepo{}
	}
	found, hasFound := g.gitDirs[g.cwd]
	repoCache.m[g.cwd] = cachedRepo{reasons: reasons, stamps: stamps, found: found, hasFound: hasFound}
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

// anchorAge is how long ago an anchor (see anchoredStamps) must have
// last changed. It is settledAge's second, kept apart from it so that
// tests that let fresh files be cached (settleAtOnce) still stamp every
// missing path itself.
const anchorAge = time.Second

// anchoredStamps shortens the stamps a cached review is checked against
// on every hit (git's discovery alone is two missing paths, .git and
// HEAD, per directory up to the root). A path that was missing is
// vouched for by its nearest existing ancestor when that is a directory
// (not a symlink) last changed more than anchorAge ago, and every path
// between them is missing too (ENOENT): while that directory keeps its
// fileid.ID, no entry was added, removed or renamed in it (each moves
// its ctime, as for dircache's listings; a mount needs an existing
// mountpoint), so the lookup still fails at the same step. Anything else
// (an error other than ENOENT, a symlink, a young directory) keeps the
// path's own stamp.
//
// The anchors are stamped here, after the review read the paths, and the
// caller then checks every recorded stamp again: a missing path seen
// still missing after its anchor was stamped stays missing while the
// anchor holds. ok is false when an anchor is also a recorded path with
// another stamp (it changed during the review): nothing is cached.
func anchoredStamps(files Files, stamps []stamp, now time.Time) (out []stamp, ok bool) {
	out = make([]stamp, 0, len(stamps))
	anchors := map[string]stamp{}
	for _, s := range stamps {
		if s.exists {
			out = append(out, s)
			anchors[s.path] = s
		}
	}
	for _, s := range stamps {
		if s.exists {
			continue
		}
		a, found := anchorOf(files, s.path, now)
		if !found {
			out = append(out, s)
			continue
		}
		if prev, seen := anchors[a.path]; seen {
			if prev != a {
				return nil, false
			}
			continue
		}
		anchors[a.path] = a
		out = append(out, a)
	}
	return out, true
}

// anchorOf is the stamp of the nearest ancestor of the missing path p
// that exists, when it can vouch for p (see anchoredStamps).
func anchorOf(files Files, p string, now time.Time) (stamp, bool) {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return stamp{}, false // a path's parent is path.Dir only when it is clean
	}
	for q := p; q != "/"; {
		if _, err := files.Lstat(q); !errors.Is(err, fs.ErrNotExist) {
			return stamp{}, false
		}
		q = path.Dir(q)
		s := stampOf(files, q)
		if !s.exists {
			continue
		}
		if s.id.Mode&syscall.S_IFMT != syscall.S_IFDIR || now.UnixNano()-s.id.Ctime <= int64(anchorAge) {
			return stamp{}, false
		}
		return s, true
	}
	return stamp{}, false
}

// recordingFiles stamps every path before it is looked at, and checks
// what each look saw against that stamp. A stamp taken before a look
// and checked again after the review cannot tell a path that was
// missing, then there when looked at, then missing again (a .git renamed
// in and out): the review read a configuration that every stamp says
// was never there, and the check after it held. So a look that found
// the path where its stamp says it was missing, or missed it where the
// stamp says it was there, leaves the review uncached (stop 61:
// TestS53fRepoCacheUnderToggling failed so on CI;
// TestRepoCacheLookAgainstItsStamp).
type recordingFiles struct {
	inner       Files
	stamps      []stamp
	seen        map[string]int // the index in stamps of each path's stamp, plus one
	uncacheable bool
}

// stamping is a test's seam: called with each path just before it is
// stamped (taken false) and just after, before it is looked at (nil but
// in tests).
var stamping func(p string, taken bool)

// saw checks the outcome of a look at p against p's stamp: found where
// the stamp says missing, or missing where it says there. (The second
// is also caught here by the ctime a rename moves; kept for file
// systems whose timestamps are coarser than two renames.)
func (r *recordingFiles) saw(p string, err error) {
	s := r.stamps[r.seen[p]-1]
	if err == nil && !s.exists || errors.Is(err, fs.ErrNotExist) && s.exists {
		r.uncacheable = true
	}
}

func (r *recordingFiles) record(p string, followed bool) {
	if r.seen[p] != 0 {
		return
	}
	if stamping != nil {
		stamping(p, false)
	}
	s := stampOf(r.inner, p)
	if stamping != nil {
		stamping(p, true)
	}
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
	r.seen[p] = len(r.stamps)
}

func (r *recordingFiles) Lstat(name string) (fs.FileInfo, error) {
	r.record(name, false)
	fi, err := r.inner.Lstat(name)
	r.saw(name, err)
	return fi, err
}

func (r *recordingFiles) Readlink(name string) (string, error) {
	r.record(name, false)
	target, err := r.inner.Readlink(name)
	r.saw(name, err)
	return target, err
}

func (r *recordingFiles) ReadDir(name string, max int) ([]fs.DirEntry, error) {
	r.record(name, true)
	entries, err := r.inner.ReadDir(name, max)
	r.saw(name, err)
	return entries, err
}

func (r *recordingFiles) ReadFile(name string, max int64) ([]byte, error) {
	r.record(name, true)
	data, err := r.inner.ReadFile(name, max)
	r.saw(name, err)
	return data, err
}
