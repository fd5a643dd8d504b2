package shellguard

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"demiurge.dev/shared/fileid"
)

// Git prints the contents of what a repository holds: a commit's patch
// (git show, git log -p), a blob (git cat-file -p), the matching lines of
// tracked files (git grep), the changes of tracked files (git diff). A
// credential committed once (a .env, a key) is printed by them though no
// path the guard reads names it (stop 51: `git log -p`, `git show HEAD`
// and `git grep TOKEN` printed a committed .env unasked, where `git show
// HEAD:.env` asked). A closed world:
//   - what reads history (a commit's patch, a revision's tree, an object
//     by name) runs unasked only when a pathspec after "--" (or an
//     existing file operand) limits it to plain files that are not
//     credential-like: history can hold a file the work tree no longer
//     has, under any directory, so a directory or a glob asks;
//   - what reads the index and the work tree (git diff without a
//     revision, --cached, git grep of the tracked files) runs unasked
//     when the index tracks no credential-like path (gitIndexPaths).
func (g *guard) gitContent(sub string, args []string, f *finding) {
	if gitDir, _, err := g.findGitDir(g.cwd); err == nil && gitDir == "" {
		return // no repository: git prints nothing of one
	}
	t := gitTables[sub]
	words, specs, dashdash := gitOperandsOf(t, args)
	patch := gitPatchAsked(sub, args)
	var history, worktree bool
	revs := 0
	switch sub {
	case "log", "whatchanged", "diff-tree", "diff-index":
		history = patch
	case "show":
		history = patch || !gitPatchSuppressed(args)
		for _, w := range words {
			if hexObject.MatchString(w) {
				f.prompt(High, "git show "+w+" names an object by its id, which may be any file's contents in git's history")
			}
		}
	case "stash":
		if len(words) > 0 && words[0] == "show" {
			words = words[1:]
			history = patch
		}
	case "range-diff":
		history = true
	case "diff":
		for _, w := range words {
			if !g.exists(g.abs(w)) {
				revs++
			}
		}
		cached := containsString(args, "--cached") || containsString(args, "--staged")
		content := patch || !gitPatchSuppressed(args)
		switch {
		case revs > 0 && content:
			history = true
		case content:
			worktree = true
		case cached:
		}
	case "diff-files":
		worktree = patch
	case "grep":
		cached := containsString(args, "--cached")
		for _, w := range gitGrepPaths(args) {
			if dashdash && containsString(specs, w) {
				continue
			}
			if !g.exists(g.abs(w)) && !strings.HasPrefix(w, ":") && !strings.ContainsAny(w, "*?[") {
				revs++ // what is no file and no pattern git takes for a revision
				if hexObject.MatchString(w) {
					// grep searches a blob given as a revision, whatever
					// the pathspec.
					f.prompt(High, "git grep "+w+" names an object by its id, which may be any file's contents in git's history")
				}
			}
		}
		history = revs > 0
		worktree = !history || cached
		words = words[:0]
		for _, w := range gitGrepPaths(args) {
			if g.exists(g.abs(w)) || strings.HasPrefix(w, ":") || strings.ContainsAny(w, "*?[") {
				specs = append(specs, w)
			}
		}
	case "cat-file":
		g.gitCatFile(args, words, f)
		return
	}
	limits := slices.Clone(specs)
	for _, w := range words {
		if g.exists(g.abs(w)) {
			limits = append(limits, w)
		}
	}
	limit := g.gitPathspecLimit(limits)
	switch {
	case limit == "":
	case history:
		f.prompt(High, "git "+sub+" prints file contents from git's history, which can hold a committed credential the guard cannot see, "+limit)
	case worktree:
		if why := g.gitIndexSensitive(); why != "" {
			f.prompt(High, "git "+sub+" prints the contents of tracked files, and "+why)
		}
	}
}

// hexObject is an abbreviated or full object id.
var hexObject = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

// gitPathspecLimit says why the pathspecs do not limit a command to plain
// files that are not credential-like ("" when they do).
func (g *guard) gitPathspecLimit(specs []string) string {
	if len(specs) == 0 {
		return "and no pathspec limits it (name the files after --)"
	}
	for _, s := range specs {
		switch {
		case strings.HasPrefix(s, ":") || strings.ContainsAny(s, "*?[\\"):
			return "and the pathspec " + s + " is a pattern"
		case g.sensitive(s) || g.sensitive(path.Join(g.cwd, s)):
			return "and the pathspec " + s + " is credential-like"
		case g.isDir(g.abs(s)) || s == "." || s == "" || strings.HasSuffix(s, "/"):
			return "and the pathspec " + s + " is a directory, which history may fill with any file"
		}
	}
	return ""
}

// gitCatFile: cat-file prints an object's contents with -p, a type, the
// batch forms (objects named on its input, or all of them) and the
// filters; only rev:path names what the object is, and the guard judged
// its path (gitOperand).
func (g *guard) gitCatFile(args, words []string, f *finding) {
	content := false
	for _, a := range args {
		switch {
		case a == "-p", strings.HasPrefix(a, "--batch") && !strings.HasPrefix(a, "--batch-check") && a != "--batch-all-objects":
			content = true
		}
	}
	if len(words) == 2 {
		content = true // cat-file <type> <object>
	}
	if !content {
		return
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--batch") && !strings.HasPrefix(a, "--batch-check") && a != "--batch-all-objects" {
			f.prompt(High, "git cat-file "+a+" prints the contents of the objects it is given, which may be any file in git's history")
			return
		}
	}
	for _, w := range words {
		if i := strings.Index(w, ":"); i <= 0 || i == len(w)-1 {
			if len(words) == 2 && w == words[0] {
				continue // the type
			}
			f.prompt(High, "git cat-file "+w+" prints an object that is not named by its path (rev:path), which may be any file in git's history")
		}
	}
}

// gitOperandsOf splits args by t: the operands before "--", and the
// pathspecs after it.
func gitOperandsOf(t gitOptTable, args []string) (words, specs []string, dashdash bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return words, args[i+1:], true
		case a == "-" || !strings.HasPrefix(a, "-"):
			words = append(words, a)
		case strings.HasPrefix(a, "--"):
			name, _, attached := strings.Cut(a, "=")
			if t.values[name] && !attached {
				i++
			}
		default:
			if t.numeric && allDigits(a[1:]) {
				continue
			}
			for j := 1; j < len(a); j++ {
				o := "-" + a[j:j+1]
				if t.optional[o] {
					break
				}
				if t.values[o] {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		}
	}
	return words, nil, false
}

// gitPatchAsked: an option that makes log, show, diff-tree or stash show
// print a patch (file contents), as a word or in a cluster of short ones.
func gitPatchAsked(sub string, args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-p", "-u", "--patch", "--unified", "-W", "--function-context", "--word-diff", "--color-words",
			"--patch-with-stat", "--patch-with-raw", "--binary", "--cc", "--dd", "--remerge-diff", "--diff-merges", "--full-diff":
			return true
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && sub != "grep" {
			for _, c := range a[1:] {
				switch c {
				case 'p', 'u', 'U', 'W', 'm', 'c':
					return true
				}
				if c >= '0' && c <= '9' {
					break // a value (-n5)
				}
			}
		}
	}
	return false
}

// gitPatchSuppressed: an option that replaces show's or diff's patch with
// names or counts only (not --check, which prints each offending line,
// nor --exit-code, which prints the patch as well).
func gitPatchSuppressed(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-s", "--no-patch", "--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--summary",
			"--dirstat", "--dirstat-by-file", "--cumulative", "--raw", "--compact-summary", "-X", "--quiet":
			return true
		}
	}
	return false
}

// gitIndexSensitive says which credential-like path the index of the
// repository git finds from the cwd tracks ("" when none, or no
// repository). An index that cannot be read asks.
func (g *guard) gitIndexSensitive() string {
	gitDir, _, err := g.findGitDir(g.cwd)
	switch {
	case err != nil:
		return "git's index cannot be found: " + err.Error()
	case gitDir == "":
		return ""
	}
	index := path.Join(gitDir, "index")
	_, real := g.files.(OSFiles)
	before, cacheable := fileid.ID{}, false
	if fi, err := g.files.Lstat(index); err == nil && real && fi.Mode().IsRegular() {
		before, cacheable = fileid.FromInfo(fi)
		indexCache.Lock()
		c, ok := indexCache.m[index]
		indexCache.Unlock()
		if ok && c.id == before {
			return c.why
		}
	}
	why := g.indexSensitive(index)
	if cacheable && settled(before, time.Now()) && stampOf(g.files, index).id == before {
		indexCache.Lock()
		if indexCache.m == nil || len(indexCache.m) >= maxRepoCache {
			indexCache.m = map[string]cachedIndex{}
		}
		indexCache.m[index] = cachedIndex{id: before, why: why}
		indexCache.Unlock()
	}
	return why
}

// indexCache keeps each index's verdict under its fileid.ID, as the
// repository review is kept (git_cache.go): git rewrites the index by
// rename, so a change is a new inode and ctime.
var indexCache struct {
	sync.Mutex
	m map[string]cachedIndex
}

type cachedIndex struct {
	id  fileid.ID
	why string
}

func (g *guard) indexSensitive(index string) string {
	names, err := g.gitIndexPaths(index)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return "git's index cannot be read: " + err.Error()
	}
	for _, n := range names {
		if g.sensitive(n) {
			return "git's index tracks " + n + ", a credential-like path"
		}
	}
	return ""
}

// maxIndexBytes bounds the index the guard reads (a larger one asks).
const maxIndexBytes = 64 << 20

// gitIndexPaths reads the paths of git's index (versions 2, 3 and 4,
// with go-git's decoder, which checks the index's checksum: a damaged or
// truncated index, or one of another object format, is an error, and the
// caller asks).
func (g *guard) gitIndexPaths(name string) ([]string, error) {
	data, err := g.files.ReadFile(name, maxIndexBytes)
	if err != nil {
		return nil, err
	}
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
		return nil, err
	}
	out := make([]string, len(idx.Entries))
	for i, e := range idx.Entries {
		out[i] = e.Name
	}
	return out, nil
}

// abs is p from the cwd.
func (g *guard) abs(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(g.cwd, p)
}

// isDir: p exists and is a directory, as its links lead.
func (g *guard) isDir(p string) bool {
	_, dir, err := g.resolve(p)
	return err == nil && dir
}
