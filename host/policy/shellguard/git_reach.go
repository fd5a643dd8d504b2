package shellguard

import (
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
	// Programs are what the values of the repository's other keys may
	// run or hand to a program they run (filter.<d>.clean, diff.<d>.textconv,
	// core.fsmonitor, core.pager, alias.x = !..., credential.helper, ...):
	// a closed world, so every word of every value the guard does not
	// know to be harmless (safeGitKey) counts, read as a shell command
	// (programWords), made absolute from the work tree's top, where git
	// runs them, whether they exist or not.
	Programs []string
	// Names are the same words as relative paths, cleaned of a leading
	// ./, ../ and /: git runs a few of them (the pager, the editor of a
	// command that sets up no repository: `git -p version` in sub/ ran
	// sub/./p.sh) from the operator's working directory, any directory of
	// the work tree, so a file of that relative path below any directory
	// is such a program.
	Names []string
}

// ReachOfGitConfig reads the configuration of the repository git finds
// from top (the nearest .git at or above it, a directory or a gitfile; a
// linked worktree's common directory) and returns what it names, relative
// paths from that repository's work tree. A file it cannot read or
// parse names nothing more (git refuses to run with a configuration it
// cannot parse); the guard's own review of such a repository asks.
func ReachOfGitConfig(top string) GitConfigReach {
	var r GitConfigReach
	top, gitDir, commonDir := gitDirsOf(top)
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
			case !safeGitKey(e):
				r.addProgramWords(e.value, top, home)
				if e.section == "url" {
					// url.<base>.insteadOf: the base is the URL used,
					// ext::<command> too.
					r.addProgramWords(e.subsection, top, home)
				}
			case e.key == "url" || e.key == "pushurl":
				// remote.<n>.url = ext::<command> runs the command.
				if cmd, ok := strings.CutPrefix(e.value, "ext::"); ok {
					r.addProgramWords(cmd, top, home)
				}
			}
		}
	}
	follow(filepath.Join(commonDir, "config"), 0)
	follow(filepath.Join(gitDir, "config.worktree"), 0)
	return r
}

// addProgramWords adds the words of one value (programWords) to
// Programs and Names.
func (r *GitConfigReach) addProgramWords(value, top, home string) {
	for _, w := range programWords(value, 0) {
		switch {
		case w == "" || strings.HasPrefix(w, "-") || len(w) == 2 && w[0] == '%':
			continue // an option (its =value is a word of its own), git's %f
		case w == "~" || strings.HasPrefix(w, "~/"):
			if p := configPath(w, top, home); p != "" {
				r.Programs = append(r.Programs, p)
			}
			continue
		case filepath.IsAbs(w):
			r.Programs = append(r.Programs, filepath.Clean(w))
		}
		// Relative to the top, to any directory below it, or the tail of
		// a word after an expansion ("$(git rev-parse --show-toplevel)/x",
		// "$GIT_DIR/../x"): the path without what leads up to it.
		n := filepath.Clean(strings.TrimLeft(w, "/"))
		for n == ".." || strings.HasPrefix(n, "../") {
			n = strings.TrimPrefix(strings.TrimPrefix(n, ".."), "/")
		}
		if n == "" || n == "." {
			continue
		}
		r.Programs = append(r.Programs, filepath.Join(top, n))
		r.Names = append(r.Names, n)
	}
}

// programWords are the words of a configuration value read as the shell
// command git makes of it (a leading ! of an alias dropped): every
// literal word, every literal piece of a word around an expansion, the
// value after an = (--file=./x), the words of a script inside quotes
// (sh -c './x; ./y'), and the words inside command substitutions. A value
// the shell parser refuses is split at blanks, quotes and shell
// punctuation instead.
func programWords(v string, depth int) []string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "!")
	if v == "" || depth > 3 {
		return nil
	}
	var pieces []string
	f, err := syntax.NewParser().Parse(strings.NewReader(v), "")
	if err != nil {
		pieces = strings.FieldsFunc(v, func(c rune) bool { return strings.ContainsRune(" \t\n;|&()<>`$'\"{}\\=", c) })
	} else {
		syntax.Walk(f, func(n syntax.Node) bool {
			if w, ok := n.(*syntax.Word); ok {
				pieces = append(pieces, literalPieces(w.Parts)...)
			}
			return true
		})
	}
	var out []string
	for _, p := range pieces {
		out = append(out, p)
		if _, after, ok := strings.Cut(p, "="); ok {
			out = append(out, after)
		}
		if strings.ContainsAny(p, " \t\n;|&<>()`$") {
			out = append(out, programWords(p, depth+1)...)
		}
	}
	return out
}

// literalPieces are the literal runs of a word's parts, an expansion
// ending one run and starting the next.
func literalPieces(parts []syntax.WordPart) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	var add func(parts []syntax.WordPart, quoted bool)
	add = func(parts []syntax.WordPart, quoted bool) {
		for _, part := range parts {
			switch x := part.(type) {
			case *syntax.Lit:
				if quoted {
					cur.WriteString(x.Value)
				} else {
					cur.WriteString(unescapeLit(x.Value))
				}
			case *syntax.SglQuoted:
				cur.WriteString(x.Value)
			case *syntax.DblQuoted:
				add(x.Parts, true)
			default:
				flush()
			}
		}
	}
	add(parts, false)
	flush()
	return out
}

// unescapeLit drops the backslashes of an unquoted literal (a\ b is "a b").
func unescapeLit(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// gitDirsOf finds the repository git finds from top, as the guard's
// repository review does (findGitDir: a .git directory, a gitfile, a
// linked worktree's commondir), and the top of its work tree: the nearest
// directory at or above top holding a .git. A workspace below its
// repository's top (a package of a monorepo) is configured by the
// repository's configuration all the same (stop 51: only a .git at the
// workspace's top was read).
func gitDirsOf(top string) (workTree, gitDir, commonDir string) {
	for d := filepath.Clean(top); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			g := &guard{files: OSFiles{}, cwd: d}
			gitDir, commonDir, err := g.findGitDir(d)
			if err != nil || gitDir == "" {
				return "", "", ""
			}
			return d, gitDir, commonDir
		}
		if d == "/" || d == "." {
			return "", "", ""
		}
	}
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
