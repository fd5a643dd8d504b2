package shellguard

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// Bounds on what the guard reads of a repository.
const (
	maxGitConfigBytes = 64 << 10
	maxGitIncludes    = 10 // include depth, as git's own limit
	maxHookEntries    = 256
)

// repoReview is what the guard found in the repository a git command
// runs in: the reasons it needs approval, if any.
type repoReview struct {
	reasons []string
}

// reviewRepo judges the repository git will find from the cwd, once per
// check: git runs programs that its configuration names (core.fsmonitor
// even on git status), so git runs unasked only when every key of the
// repository's configuration and its includes is known not to run
// anything, and its hooks directory holds no hook. The global file is not
// read: the host runs guarded git without it (GIT_CONFIG_GLOBAL=/dev/null);
// the system file is root's, trusted like git itself.
func (g *guard) reviewRepo(f *finding) {
	if g.repo == nil {
		g.repo = &repoReview{}
		g.repo.reasons = g.reviewRepoCached()
	}
	for _, r := range g.repo.reasons {
		f.prompt(High, r)
	}
}

func (g *guard) findAndReviewRepo() []string {
	if g.cwd == "" {
		return []string{"git runs in an unknown directory, whose repository configuration cannot be reviewed"}
	}
	gitDir, common, err := g.findGitDir(g.cwd)
	switch {
	case err != nil:
		return []string{"git's repository cannot be reviewed: " + err.Error()}
	case gitDir == "":
		return nil // no repository: git reads no repository configuration
	}
	var reasons []string
	cr := configReview{g: g, reasons: &reasons}
	cr.file(path.Join(common, "config"), 0, true)
	// config.worktree is read when extensions.worktreeConfig is set;
	// reviewing it whenever it exists is simpler and stricter.
	if wt := path.Join(gitDir, "config.worktree"); g.exists(wt) {
		cr.file(wt, 0, true)
	}
	reasons = append(reasons, g.reviewHooks(path.Join(common, "hooks"))...)
	// Alternates make git read objects of other repositories, which can
	// lie anywhere; grafts rewrite history as git shows it.
	for _, p := range []string{"objects/info/alternates", "objects/info/http-alternates", "info/grafts"} {
		if g.exists(path.Join(common, p)) {
			reasons = append(reasons, "git's repository has "+p+", which makes git read or show what is not in this repository")
		}
	}
	return reasons
}

// findGitDir finds the repository as git's discovery does: from dir up to
// the root, a .git directory, a .git file naming its directory
// ("gitdir: ..."), or a directory that is itself a git directory (a bare
// repository). common is the directory holding config and hooks (the main
// repository's, for a linked worktree). No repository is "", "", nil.
func (g *guard) findGitDir(dir string) (gitDir, common string, err error) {
	if found, ok := g.gitDirs[dir]; ok {
		return found.gitDir, found.common, found.err
	}
	gitDir, common, err = g.lookUpGitDir(dir)
	g.remember(dir, foundGitDir{gitDir, common, err})
	return gitDir, common, err
}

func (g *guard) remember(dir string, found foundGitDir) {
	if g.gitDirs == nil {
		g.gitDirs = map[string]foundGitDir{}
	}
	g.gitDirs[dir] = found
}

// foundGitDir is findGitDir's answer for one directory, kept for the rest
// of the check: a git command asks for its repository up to three times
// (the configuration's review, the content rules, the index), and each
// walk is an lstat a level up to the root.
type foundGitDir struct {
	gitDir, common string
	err            error
}

// lookUpGitDir is findGitDir without the memo.
func (g *guard) lookUpGitDir(dir string) (gitDir, common string, err error) {
	for d := dir; ; d = path.Dir(d) {
		dotGit := path.Join(d, ".git")
		fi, err := g.files.Lstat(dotGit)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			r, isDir, err := g.resolve(dotGit)
			if err != nil {
				return "", "", err
			}
			if isDir {
				return g.commonDir(r)
			}
			return g.gitFile(dotGit)
		case err == nil && fi.IsDir():
			return g.commonDir(dotGit)
		case err == nil && fi.Mode().IsRegular():
			return g.gitFile(dotGit)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", "", err
		}
		if g.isGitDir(d) {
			return g.commonDir(d)
		}
		if d == "/" {
			return "", "", nil
		}
	}
}

// gitFile follows a .git file: "gitdir: <path>", relative to the file's
// directory.
func (g *guard) gitFile(dotGit string) (string, string, error) {
	data, err := g.files.ReadFile(dotGit, 4096)
	if err != nil {
		return "", "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return "", "", errors.New(dotGit + " is a file that does not name a git directory")
	}
	if !path.IsAbs(target) {
		target = path.Join(path.Dir(dotGit), target)
	}
	r, _, err := g.resolve(target)
	if err != nil {
		return "", "", err
	}
	return g.commonDir(r)
}

// commonDir reads a git directory's commondir file (linked worktrees),
// relative to the git directory.
func (g *guard) commonDir(gitDir string) (string, string, error) {
	data, err := g.files.ReadFile(path.Join(gitDir, "commondir"), 4096)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gitDir, gitDir, nil
	case err != nil:
		return "", "", err
	}
	c := strings.TrimSpace(string(data))
	if !path.IsAbs(c) {
		c = path.Join(gitDir, c)
	}
	r, _, err := g.resolve(c)
	if err != nil {
		return "", "", err
	}
	return gitDir, r, nil
}

// isGitDir is git's is_git_directory: HEAD, objects/ and refs/.
func (g *guard) isGitDir(d string) bool {
	return g.exists(path.Join(d, "HEAD")) && g.exists(path.Join(d, "objects")) && g.exists(path.Join(d, "refs"))
}

func (g *guard) exists(p string) bool {
	_, err := g.files.Lstat(p)
	return err == nil
}

// reviewHooks: git runs a hook when a file of that name in the hooks
// directory is executable (post-index-change runs on git status). Any
// entry but the shipped *.sample files (git never runs a name with that
// suffix, executable or not) needs approval, whatever its mode: a mode
// can change before the command runs.
func (g *guard) reviewHooks(dir string) []string {
	entries, err := g.files.ReadDir(dir, maxHookEntries)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return []string{"git's hooks directory cannot be reviewed: " + err.Error()}
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".sample") {
			continue
		}
		out = append(out, "git's hooks directory holds "+name+", which git may run")
	}
	return out
}
