package shellguard

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"time"
)

// maxLinks is how many symlinks one resolution follows, as Linux's
// ELOOP limit.
const maxLinks = 40

// Bounds on a tree walk (grep -r, rg, find with content actions): past
// either, the command needs approval, since what it reads is unknown.
const (
	maxTreeEntries = 20000
	maxTreeTime    = 200 * time.Millisecond
)

// errLoop is too many symlinks in one path.
var errLoop = errors.New("too many levels of symbolic links")

// readPath judges a path the command reads, as written and as the kernel
// will resolve it from the command's cwd (symlinks followed):
// credential-like paths need approval at high risk, paths outside the
// workspace at medium. A path that cannot be resolved (a loop, an
// unreadable directory on the way) needs approval as well.
func (g *guard) readPath(p string, f *finding) {
	g.judgePath(p, f)
}

// judgePath is readPath returning the resolved path and whether it is a
// directory, for readTree; resolved is "" when it could not be resolved.
func (g *guard) judgePath(p string, f *finding) (resolved string, dir bool) {
	switch p {
	case "", "-", "/dev/null", "/dev/stdin", "/dev/zero", "/dev/fd/0":
		return "", false
	}
	// As written: relative to the root when inside, so that a workspace
	// below a directory that looks sensitive does not flag every file in
	// it.
	lexical := p
	if !path.IsAbs(lexical) && g.cwd != "" {
		lexical = g.cwd + "/" + p
	}
	lexical = path.Clean(lexical)
	sensitive := g.sensitive(p)
	if path.IsAbs(lexical) {
		sensitive = sensitive || g.sensitiveAt(lexical)
	}
	if path.IsAbs(p) || g.cwd != "" {
		var err error
		resolved, dir, err = g.resolve(p)
		switch {
		case err != nil:
			f.prompt(Medium, "cannot follow "+p+" to see what it names: "+err.Error())
		case resolved != lexical && g.sensitiveAt(resolved): // lexical was judged above
			sensitive = true
		}
	}
	if sensitive {
		f.prompt(High, "touches "+p+", a credential-like path")
	}
	switch {
	case resolved != "":
		if _, inside := g.within(resolved); !inside {
			where := ""
			if resolved != lexical {
				where = " (it resolves to " + resolved + ")"
			}
			f.prompt(Medium, "reads "+p+", outside the workspace"+where)
		}
	case path.IsAbs(lexical):
		if _, inside := g.within(lexical); !inside {
			f.prompt(Medium, "reads "+p+", outside the workspace")
		}
	default:
		// No cwd to resolve against: only a path that climbs is known to
		// leave.
		if strings.HasPrefix(p, "..") {
			f.prompt(Medium, "reads "+p+", outside the workspace")
		}
	}
	return resolved, dir
}

// within reports whether abs (clean, absolute) lies in the workspace, and
// its path relative to the root.
func (g *guard) within(abs string) (rel string, inside bool) {
	switch {
	case g.root == "":
		return "", false
	case g.root == "/":
		return abs, true
	case abs == g.root:
		return ".", true
	}
	if r, ok := strings.CutPrefix(abs, g.root+"/"); ok {
		return r, true
	}
	return "", false
}

// sensitiveAt judges a clean absolute path: relative to the root when it
// is inside the workspace, absolute otherwise.
func (g *guard) sensitiveAt(abs string) bool {
	if rel, inside := g.within(abs); inside && g.root != "/" {
		return g.sensitive(rel) || g.sensitive(abs) && !g.rootSensitive
	}
	return g.sensitive(abs)
}

// resolve follows p from the cwd the way the kernel does: element by
// element, a symlink's target replacing it (".." after a symlink climbs
// from the target, not from the link). The part that does not exist is
// kept as written, since it cannot be a link. dir says whether the result
// is an existing directory.
func (g *guard) resolve(p string) (resolved string, dir bool, err error) {
	cur := "/"
	if !path.IsAbs(p) {
		// The cwd is real (the host resolved it), so resolution starts
		// there without looking at its elements again.
		cur = g.cwd
	}
	rest := p
	links := 0
	for rest != "" {
		var elem string
		elem, rest, _ = strings.Cut(rest, "/")
		switch elem {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, elem)
		typ, err := g.lstatType(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return path.Join(next, rest), false, nil
		case err != nil:
			return "", false, err
		case typ != fs.ModeSymlink:
			cur = next
			if rest == "" {
				return cur, typ == fs.ModeDir, nil
			}
			continue
		}
		if links++; links > maxLinks {
			return "", false, errLoop
		}
		target, err := g.files.Readlink(next)
		if err != nil {
			return "", false, err
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		if rest != "" {
			target += "/" + rest
		}
		rest = target
	}
	typ, err := g.lstatType(cur)
	if err != nil {
		return cur, false, nil
	}
	return cur, typ == fs.ModeDir, nil
}

// lstatType is the type bits (fs.ModeType) of what Lstat finds at name.
// resolve asks it of every element of every path a command names, most
// of them missing; on the real file system it asks the kernel directly,
// without the FileInfo, and for a missing path the *PathError, that
// os.Lstat allocates each time. Other errors are the PathError os.Lstat
// gives.
func (g *guard) lstatType(name string) (fs.FileMode, error) {
	if _, real := g.files.(OSFiles); !real {
		fi, err := g.files.Lstat(name)
		if err != nil {
			return 0, err
		}
		return fi.Mode().Type(), nil
	}
	var st syscall.Stat_t
	err := syscall.Lstat(name, &st)
	for err == syscall.EINTR {
		err = syscall.Lstat(name, &st)
	}
	switch {
	case err == syscall.ENOENT || err == syscall.ENOTDIR:
		return 0, err
	case err != nil:
		return 0, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		return fs.ModeSymlink, nil
	case syscall.S_IFDIR:
		return fs.ModeDir, nil
	}
	return 0, nil // the other types are neither followed nor walked
}

// readTree judges a command that reads a whole tree below p (grep -r,
// rg on a directory, find with content actions, git grep --no-index): p
// as readPath does, and then what the tree holds. A sensitive path in it,
// or a symlink in it that leads out of the workspace or to a sensitive
// path, needs approval; so does a tree too large to walk within the
// bounds. Symlinks to directories are walked too (grep -R and rg -L
// follow them; being conservative costs only a prompt).
func (g *guard) readTree(p string, f *finding) {
	g.readTreeWith(p, treeMode{}, f)
}

// treeMode says what a program skips when it walks a tree, for programs
// that read less than everything (rg by default skips hidden entries and
// follows no symlink below its operands). The zero value is everything.
type treeMode struct {
	skipHidden bool // entries whose name starts with "." are not read
	noFollow   bool // symlinks met in the walk are not followed
	// namesOnly: the walk lists names and metadata (ls -RL, du -L, find
	// -L), so a credential-like name in it asks no more than ls does;
	// where its symlinks lead still does.
	namesOnly bool
}

// listTreeFollowing judges a listing that follows the symlinks it meets
// below p (ls -RL, du -L, tree -l, find -L): a link out of the workspace
// or to a credential-like path asks, as listing it by name would.
func (g *guard) listTreeFollowing(p string, f *finding) {
	g.readTreeWith(p, treeMode{namesOnly: true}, f)
}

func (g *guard) readTreeWith(p string, mode treeMode, f *finding) {
	resolved, dir := g.judgePath(p, f)
	if resolved == "" || !dir {
		return
	}
	if mode.skipHidden && g.ignoreWhitelistsAbove(resolved) {
		mode.skipHidden = false
	}
	w := treeWalk{g: g, f: f, top: p, start: time.Now(), seen: map[string]bool{}, limit: g.treeLimit, mode: mode}
	if w.limit == 0 {
		w.limit = maxTreeEntries
	}
	w.walk(resolved, 0)
}

// treeWalk is one bounded walk of readTree.
type treeWalk struct {
	g       *guard
	f       *finding
	top     string
	start   time.Time
	entries int
	limit   int
	mode    treeMode
	seen    map[string]bool // resolved directories already walked
	stopped bool
	found   int // findings reported so far
	// namedHigh is set once a credential-like entry has been named.
	namedHigh bool
}

// maxTreeFindings bounds the reasons one walk reports: a few name what
// asks, and a tree like /etc would otherwise fill the verdict with
// hundreds.
const maxTreeFindings = 3

// maxTreeDepth bounds how deep a walk descends.
const maxTreeDepth = 64

// report raises the finding for one entry. Past maxTreeFindings reasons
// it names no more (a tree like /etc would fill the verdict with
// hundreds) but keeps walking while the risk could still rise; once a
// credential-like entry is found, nothing further can make the verdict
// stricter and the walk ends.
func (w *treeWalk) report(r Risk, reason string) {
	if w.found < maxTreeFindings || (r == High && !w.namedHigh) {
		w.f.prompt(r, reason)
		w.namedHigh = w.namedHigh || r == High
	} else {
		w.f.prompt(r, "reads the tree "+w.top+", which holds more entries that ask")
	}
	w.found++
	if r == High && w.found >= maxTreeFindings {
		w.stopped = true
	}
}

func (w *treeWalk) walk(dir string, depth int) {
	if w.stopped || w.seen[dir] {
		return
	}
	w.seen[dir] = true
	if w.mode.skipHidden && w.g.ignoreWhitelists(dir) {
		// A "!" line of an ignore file here whitelists what it names,
		// hidden entries too: below here, they are read.
		w.mode.skipHidden = false
		defer func() { w.mode.skipHidden = true }()
	}
	if depth > maxTreeDepth {
		w.stop(fmt.Sprintf("is nested more than %d directories deep", maxTreeDepth))
		return
	}
	entries, err := w.g.files.ReadDir(dir, w.limit-w.entries)
	if errors.Is(err, errTooMany) {
		w.entries = w.limit
	}
	if err != nil {
		w.stop("could not be listed: " + err.Error())
		return
	}
	for _, e := range entries {
		w.entries++
		if w.entries%256 == 0 && time.Since(w.start) > maxTreeTime {
			w.stop(fmt.Sprintf("took longer than %v to review", maxTreeTime))
			return
		}
		child := path.Join(dir, e.Name())
		if w.mode.skipHidden && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if w.mode.noFollow && e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		if !w.mode.namesOnly && w.g.sensitiveAt(child) {
			w.report(High, "reads the tree "+w.top+", which holds "+w.show(child)+", a credential-like path")
			continue
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			w.link(child, depth)
		case e.IsDir():
			w.walk(child, depth+1)
		}
		if w.stopped {
			return
		}
	}
}

// link judges a symlink met in the walk by where it leads.
func (w *treeWalk) link(child string, depth int) {
	target, isDir, err := w.g.resolve(child)
	switch {
	case err != nil:
		w.report(Medium, "reads the tree "+w.top+", whose link "+w.show(child)+" cannot be followed: "+err.Error())
		return
	case w.g.sensitiveAt(target):
		w.report(High, "reads the tree "+w.top+", whose link "+w.show(child)+" leads to "+target+", a credential-like path")
		return
	}
	if _, inside := w.g.within(target); !inside {
		w.report(Medium, "reads the tree "+w.top+", whose link "+w.show(child)+" leads out of the workspace to "+target)
		return
	}
	if isDir {
		w.walk(target, depth+1)
	}
}

// stop ends the walk: what was not seen needs approval.
func (w *treeWalk) stop(why string) {
	w.stopped = true
	if w.entries >= w.limit {
		why = fmt.Sprintf("holds more than %d entries", w.limit)
	}
	w.f.prompt(Medium, "reads the tree "+w.top+", which "+why)
}

// show names a path of the walk relative to the workspace when it is in
// it.
func (w *treeWalk) show(p string) string {
	if rel, ok := w.g.within(p); ok && w.g.root != "/" {
		return rel
	}
	return p
}

// ignoreFiles are the files whose "!" lines make ripgrep read hidden
// entries it otherwise skips (a whitelist match is never hidden).
var ignoreFiles = []string{".gitignore", ".ignore", ".rgignore"}

// ignoreWhitelists reports an ignore file in dir with a "!" line, or one
// the guard cannot read whole (fail closed).
func (g *guard) ignoreWhitelists(dir string) bool {
	for _, name := range ignoreFiles {
		data, err := g.files.ReadFile(path.Join(dir, name), 1<<20)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			return true
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "!") {
				return true
			}
		}
	}
	return false
}

// ignoreWhitelistsAbove reports a whitelisting ignore file in dir's
// parents (ripgrep reads them up to the root) or in the repository's
// .git/info/exclude at the workspace root.
func (g *guard) ignoreWhitelistsAbove(dir string) bool {
	if g.root != "" {
		data, err := g.files.ReadFile(path.Join(g.root, ".git", "info", "exclude"), 1<<20)
		if err == nil && strings.Contains("\n"+string(data), "\n!") {
			return true
		}
	}
	for d := path.Dir(dir); ; d = path.Dir(d) {
		if g.ignoreWhitelists(d) {
			return true
		}
		if d == "/" || d == "." {
			return false
		}
	}
}
