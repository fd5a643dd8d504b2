package shellguard

import (
	"os"
	"path/filepath"
	"strings"
)

// GitConfigReach is what a repository's own configuration names that git
// reads as configuration too, or runs: a file it includes is read as if it
// stood in .git/config (its core.fsmonitor runs on the operator's next
// `git status`), and the hooks directory's programs run on the operator's
// next commit. .git/config itself is protected; these are the same power
// under another name, wherever the configuration puts them (a project
// that shares its settings with `include.path = ../.gitconfig`, husky's
// `core.hooksPath = .husky/_`).
type GitConfigReach struct {
	// Files are the included files (include.path, includeIf.<cond>.path,
	// followed to their own includes) and core.attributesFile, absolute
	// and clean, whether they exist or not: whoever creates a missing one
	// configures git as well.
	Files []string
	// Dirs are core.hooksPath's directories, absolute and clean (every
	// value the files set, not only the last one git uses).
	Dirs []string
}

// ReachOfGitConfig reads the configuration of the repository whose work
// tree is top (top/.git, a directory or a gitfile; a linked worktree's
// common directory) and returns what it names. A file it cannot read or
// parse names nothing more (git refuses to run with a configuration it
// cannot parse); the guard's own review of such a repository asks.
func ReachOfGitConfig(top string) GitConfigReach {
	var r GitConfigReach
	gitDir, commonDir := gitDirsOf(top)
	if gitDir == "" {
		return r
	}
	home, _ := os.UserHomeDir()
	seen := map[string]bool{}
	var follow func(name string, depth int)
	follow = func(name string, depth int) {
		if depth > maxGitIncludes || seen[name] {
			return
		}
		seen[name] = true
		data, err := OSFiles{}.ReadFile(name, maxGitConfigBytes)
		if err != nil {
			return
		}
		entries, err := parseGitConfig(string(data))
		if err != nil {
			return
		}
		for _, e := range entries {
			switch {
			case e.key == "path" && (e.section == "include" && e.subsection == "" || e.section == "includeif"):
				if p := configPath(e.value, filepath.Dir(name), home); p != "" {
					r.Files = append(r.Files, p)
					follow(p, depth+1)
				}
			case e.section == "core" && e.subsection == "" && e.key == "attributesfile":
				if p := configPath(e.value, top, home); p != "" {
					r.Files = append(r.Files, p)
				}
			case e.section == "core" && e.subsection == "" && e.key == "hookspath":
				if p := configPath(e.value, top, home); p != "" {
					r.Dirs = append(r.Dirs, p)
				}
			}
		}
	}
	follow(filepath.Join(commonDir, "config"), 0)
	follow(filepath.Join(gitDir, "config.worktree"), 0)
	return r
}

// gitDirsOf finds top's git directory and common directory as the
// guard's repository review does (findGitDir: a .git directory, a gitfile,
// a linked worktree's commondir), for a top that has a .git of its own.
func gitDirsOf(top string) (gitDir, commonDir string) {
	if _, err := os.Lstat(filepath.Join(top, ".git")); err != nil {
		return "", ""
	}
	g := &guard{files: OSFiles{}, cwd: top}
	gitDir, commonDir, err := g.findGitDir(top)
	if err != nil {
		return "", ""
	}
	return gitDir, commonDir
}

// configPath is a path value of git's configuration made absolute: ~/
// is the operator's home, a relative path is relative to base; "" for an
// empty value or another user's home (~name).
func configPath(v, base, home string) string {
	switch {
	case v == "":
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, strings.TrimPrefix(v, "~"))
	case strings.HasPrefix(v, "~"):
		return ""
	}
	return absFrom(v, base)
}

func absFrom(p, base string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
