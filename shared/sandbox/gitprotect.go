package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// gitEntries are the entries of a .git directory that git reads to find
// configuration, hooks or objects elsewhere: whoever writes them makes
// the operator's next git run code (hooks, core.fsmonitor, a filter) or
// read another repository's objects.
var gitEntries = []string{"config", "hooks", "config.worktree", "commondir", "info", "worktrees", "modules", filepath.Join("objects", "info", "alternates")}

// GitProtected lists what of a workspace's .git directory stays read-only
// in the write modes: config and hooks always (missing, the helper holds
// .git itself read-only instead, as before), each other entry of
// gitEntries that exists (for worktrees/ and modules/, only the
// configuration, hooks and pointers of each git directory in them), and for a missing alternates file its
// objects/info directory. The other missing entries directly in .git are
// not listed: holding all of .git read-only for them would stop every
// commit of an ordinary repository. A .git that is not a directory (a
// worktree's gitfile) is listed itself.
func GitProtected(ws string) []string {
	dotgit := filepath.Join(ws, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		return []string{dotgit}
	}
	var out []string
	for _, e := range gitEntries {
		p := filepath.Join(dotgit, e)
		if e == "worktrees" || e == "modules" {
			// Their git directories are written by ordinary work in a
			// linked worktree or a submodule (HEAD, index, objects): hold
			// only what points git at configuration, hooks or another
			// repository.
			out = append(out, gitDirChildren(p, e)...)
			continue
		}
		if _, err := os.Lstat(p); err == nil || e == "config" || e == "hooks" {
			out = append(out, p)
			continue
		}
		if e == filepath.Join("objects", "info", "alternates") {
			if _, err := os.Lstat(filepath.Dir(p)); err == nil {
				out = append(out, filepath.Dir(p))
			}
		}
	}
	return out
}

// gitDirChildren lists, for each git directory under dir (.git/worktrees/W
// or .git/modules/M), the entries that exist of those git reads for
// configuration, hooks or another repository.
func gitDirChildren(dir, kind string) []string {
	names := []string{"config.worktree", "commondir", "gitdir"}
	if kind == "modules" {
		names = []string{"config", "hooks", "config.worktree", "commondir", "info", filepath.Join("objects", "info", "alternates")}
	}
	children, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range children {
		if !c.IsDir() {
			continue
		}
		for _, n := range names {
			p := filepath.Join(dir, c.Name(), n)
			if _, err := os.Lstat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// GitReachHeld splits what a repository's configuration names (the
// files it includes and the hooks directories, absolute) into what the
// sandbox holds read-only and what it watches: of those inside ws, the
// ones that exist, as their links lead when that stays inside ws, are
// held; the missing ones are watched (Policy.Watched). Outside the
// workspace nothing is writable anyway.
func GitReachHeld(ws string, named []string) (held, watch []string) {
	ws = filepath.Clean(ws)
	rws, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return nil, nil
	}
	for _, n := range named {
		n = filepath.Clean(n)
		if !within(ws, n) || n == ws {
			continue
		}
		// A symlink on the way (the name itself or a directory above it)
		// is not held by holding where it leads: a command could replace
		// the link (stop 51: `.gitconfig -> conf/shared.cfg`, included,
		// was removed and written again, and the operator's git status ran
		// its fsmonitor). Listed as it is, the helper refuses to start and
		// says to replace the symlink with the file.
		if l := linkOnTheWay(ws, n); l != "" {
			held = append(held, l)
		}
		if _, err := os.Lstat(n); err != nil {
			watch = append(watch, n)
			continue
		}
		real, err := filepath.EvalSymlinks(n)
		if err != nil {
			// A link whose target is missing: whoever creates the
			// target writes what git reads or runs (stop 51).
			if t, ok := danglingTarget(n); ok {
				if rel, err := filepath.Rel(rws, t); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					watch = append(watch, filepath.Join(ws, rel))
				} else if within(ws, t) && t != ws {
					watch = append(watch, t)
				}
			}
			continue
		}
		if rel, err := filepath.Rel(rws, real); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			held = append(held, filepath.Join(ws, rel))
		}
	}
	return held, watch
}

// danglingTarget is the missing path a chain of symlinks from p ends in
// (followed as the kernel would, up to 40 links; a parent that exists
// taken as its links lead); false when p leads to something that exists
// or cannot be read.
func danglingTarget(p string) (string, bool) {
	for i := 0; i < 40; i++ {
		t, err := os.Readlink(p)
		if err != nil {
			return "", false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return p, true
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return "", false
		}
	}
	return "", false
}

// linkOnTheWay is the first symlink among the paths from ws (excluded)
// down to n, "" when none.
func linkOnTheWay(ws, n string) string {
	rel, err := filepath.Rel(ws, n)
	if err != nil {
		return ""
	}
	cur := ws
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return ""
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return cur
		}
	}
	return ""
}
