package shellguard

import (
	"strconv"
	"strings"
)

// gitDangers run programs or write files from any git command.
var gitDangers = []danger{
	{"--output", writes}, {"--ext-diff", execs}, {"--textconv", execs}, {"--exec", execs},
	{"--upload-pack", execs}, {"--receive-pack", execs}, {"--open-files-in-pager", execs},
	{"--paginate", "runs a pager"}, {"--config-env", "sets configuration, which can run programs"},
}

// gitReadOnly are the subcommands that only read, when no dangerous
// option is given; some have their own shape check.
var gitReadOnly = map[string]func(args []string) string{
	"status": nil, "log": nil, "show": nil, "diff": nil, "blame": nil, "annotate": nil, "shortlog": nil,
	"describe": nil, "rev-parse": nil, "rev-list": nil, "ls-files": nil, "ls-tree": nil, "cat-file": nil,
	"show-ref": nil, "for-each-ref": nil, "merge-base": nil, "name-rev": nil, "count-objects": nil,
	"check-ignore": nil, "check-attr": nil, "grep": nil, "whatchanged": nil, "version": nil, "diff-tree": nil,
	"diff-files": nil, "diff-index": nil, "cherry": nil, "range-diff": nil, "show-branch": nil, "var": nil,
	"branch":   gitBranch,
	"tag":      gitTag,
	"remote":   gitRemote,
	"worktree": gitOnly("list"),
	"stash":    gitOnly("list", "show"),
	"reflog":   gitReflog,
	"config":   gitConfig,
}

// gitNetwork reach remotes.
var gitNetwork = map[string]bool{"fetch": true, "pull": true, "push": true, "clone": true, "ls-remote": true, "submodule": true, "remote": true}

// checkGit allows the explicit read-only shapes of git; remote operations
// and branch, tag, remote and worktree changes need approval.
func checkGit(g *guard, name string, args []string, _ int, f *finding) {
	i := 0
global:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C":
			f.prompt(Medium, "git -C runs git in another directory")
			i++
		case a == "-c" || strings.HasPrefix(a, "-c"):
			f.prompt(High, "git -c sets configuration, which can run programs (core.pager, core.fsmonitor, ...)")
			if a == "-c" {
				i++
			}
		case optMatches(a, "--config-env"):
			f.prompt(High, "git --config-env sets configuration, which can run programs")
		case a == "-p" || optMatches(a, "--paginate"):
			f.prompt(High, "git -p runs a pager")
		case strings.HasPrefix(a, "--exec-path="):
			f.prompt(High, "git --exec-path= runs git programs from another directory")
		case optMatches(a, "--git-dir") || optMatches(a, "--work-tree") || optMatches(a, "--namespace") || optMatches(a, "--super-prefix"):
			f.prompt(Medium, "git "+strings.SplitN(a, "=", 2)[0]+" points git at another repository")
			if !strings.Contains(a, "=") {
				i++
			}
		case a == "-P" || a == "--no-pager" || a == "--no-replace-objects" || a == "--literal-pathspecs" || a == "--glob-pathspecs" ||
			a == "--noglob-pathspecs" || a == "--icase-pathspecs" || a == "--no-optional-locks" || a == "--exec-path" || a == "--bare" ||
			a == "--no-lazy-fetch" || a == "--no-advice":
		case a == "--version" || a == "-v":
			return
		case a == "--help" || a == "-h":
			f.prompt(Medium, "git --help opens a manual page viewer")
			return
		case strings.HasPrefix(a, "-"):
			f.prompt(High, "git option "+a+" is not known to the guard")
		default:
			break global
		}
	}
	if i >= len(args) {
		return // prints usage
	}
	sub, rest := args[i], args[i+1:]
	shape, ok := gitReadOnly[sub]
	switch {
	case !ok && gitNetwork[sub]:
		f.prompt(High, "git "+sub+" reaches the network or changes remotes")
		return
	case !ok:
		f.prompt(High, "git "+sub+" is not a known read-only git command")
		return
	}
	if shape != nil {
		if why := shape(rest); why != "" {
			f.prompt(High, "git "+sub+" "+why)
		}
	}
	if sub != "version" {
		g.reviewRepo(f)
	}
	if _, ok := gitTables[sub]; ok {
		g.checkGitOpts(sub, rest, f)
		g.gitContent(sub, rest, f)
	} else {
		g.gitShapeArgs(sub, rest, f)
	}
	if (sub == "diff" || sub == "log") && containsString(rest, "--no-index") {
		// Two directories are compared file by file: trees.
		for _, p := range operands(rest) {
			g.readTree(p, f)
		}
	}
	if sub == "grep" && (containsString(rest, "--no-index") || containsString(rest, "--untracked")) {
		// --untracked searches the files git does not track as well (a
		// .env nobody committed; with --no-exclude-standard the ignored
		// ones too): what the tree holds, as --no-index.
		g.gitGrepNoIndex(rest, f)
	}
}

// gitOnly allows a subcommand's read-only subcommands, named first (git
// stash list): a word after options or "--" is no subcommand (git stash
// -- list stashes the file list).
func gitOnly(allowed ...string) func([]string) string {
	return func(args []string) string {
		if len(args) > 0 && containsString(allowed, args[0]) {
			return ""
		}
		return "changes the repository; only " + strings.Join(allowed, ", ") + " are read-only"
	}
}

// gitListOnly accepts a branch or tag command that only lists.
func gitListOnly(args []string, listFlags, valueFlags []string) bool {
	list := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-l" || a == "--list":
			list = true
		case containsString(listFlags, a):
		case containsString(valueFlags, a):
			i++
		case strings.HasPrefix(a, "--") && containsString(valueFlags, strings.SplitN(a, "=", 2)[0]):
		case strings.HasPrefix(a, "-"):
			return false
		default:
			if !list {
				return false // an operand without --list names something to create
			}
		}
	}
	return true
}

func gitBranch(args []string) string {
	if gitListOnly(args,
		[]string{"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current", "--color", "--no-color", "--column", "--no-column", "-i", "--ignore-case", "--abbrev", "--no-abbrev", "--omit-empty"},
		[]string{"--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format", "--points-at"}) {
		return ""
	}
	return "creates, deletes or changes branches"
}

func gitTag(args []string) string {
	if gitListOnly(args,
		[]string{"-n", "--column", "--no-column", "-i", "--ignore-case", "--color", "--omit-empty"},
		[]string{"--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format", "--points-at"}) {
		return ""
	}
	return "creates, deletes or verifies tags"
}

func gitRemote(args []string) string {
	ops := operands(args)
	switch {
	case len(ops) == 0 && (len(args) == 0 || (len(args) == 1 && (args[0] == "-v" || args[0] == "--verbose"))):
		return ""
	case len(ops) == 2 && ops[0] == "get-url":
		return ""
	}
	return "changes remotes or reaches the network"
}

func gitReflog(args []string) string {
	ops := operands(args)
	if len(ops) == 0 || ops[0] == "show" || !containsString([]string{"expire", "delete", "drop", "write"}, ops[0]) {
		return ""
	}
	return "changes the reflog"
}

func gitConfig(args []string) string {
	readMode := false
	names := 0 // operands: one is a get, two a set
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--get-color", "--get-colorbool":
			readMode = true
		case "--global", "--system", "--local", "--worktree", "--show-origin", "--show-scope", "--name-only", "-z", "--null",
			"--includes", "--no-includes", "--bool", "--int", "--path", "--all":
		case "--type", "--default", "--file", "-f", "--blob":
			i++ // its value is no operand
		case "--":
			names += len(args) - i - 1
			i = len(args)
		default:
			switch {
			case !strings.HasPrefix(a, "-") || a == "-":
				// A key has a section (user.name); a first word without
				// one is a subcommand of git 2.46 (edit runs an editor,
				// set and unset write) or an error of an older git.
				switch {
				case names > 0:
				case a == "get" || a == "list": // git 2.46's read subcommands
					readMode = true
					continue
				case !strings.Contains(a, "."):
					return "changes git configuration or runs its editor (git config " + a + ")"
				}
				names++
			default:
				// --type=, --default=, --file=, --blob= (apart: the case above)
				if name, _, _ := strings.Cut(a, "="); !containsString([]string{"--type", "--default", "--file", "--blob"}, name) {
					return "changes git configuration"
				}
			}
		}
	}
	if readMode || names == 1 {
		return ""
	}
	return "changes git configuration"
}

// gitGrepNoIndex: git grep --no-index (or --untracked) searches the files
// below the cwd, or below the pathspecs after the pattern, as a tree read.
// A pathspec that is a glob reads the cwd's tree; pathspec magic (":/",
// the repository's top) asks.
func (g *guard) gitGrepNoIndex(args []string, f *finding) {
	paths := gitGrepPaths(args)
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		switch {
		case strings.HasPrefix(p, ":"):
			f.prompt(Medium, "git grep pathspec "+strconv.Quote(p)+" may search beyond the working directory")
		case strings.ContainsAny(p, "*?["):
			// git's * matches / too: the glob reads the tree of its
			// literal directory, the cwd when it has none.
			if i := strings.LastIndexByte(p[:strings.IndexAny(p, "*?[")], '/'); i > 0 {
				g.readTree(p[:i], f)
			} else {
				g.readTree(".", f)
			}
		default:
			g.readTree(p, f)
		}
	}
}

// gitGrepValued are git grep's options that take a value.
var gitGrepValued = map[string]bool{"-e": true, "-f": true, "-A": true, "-B": true, "-C": true, "-m": true,
	"--after-context": true, "--before-context": true, "--context": true, "--max-depth": true, "--max-count": true, "--threads": true}

// gitGrepPaths are the pathspecs of git grep: the words after the pattern
// (the first word, unless -e or -f gave it) and after "--", with option
// values (-e PAT, -A 3, -ieFOO) skipped as parse-options reads them.
func gitGrepPaths(args []string) []string {
	var words []string
	patternGiven := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			// What follows is words: the first of them the pattern when
			// none came before (git grep -- foo d), dropped below.
			words = append(words, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a, "=")
			if gitGrepValued[name] && !hasValue {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				if !gitGrepValued["-"+a[j:j+1]] {
					continue
				}
				if a[j] == 'e' || a[j] == 'f' {
					patternGiven = true
				}
				if j == len(a)-1 {
					i++
				}
				break
			}
		default:
			words = append(words, a)
		}
	}
	if !patternGiven && len(words) > 0 {
		words = words[1:]
	}
	return words
}

// gitShapeArgs judges the arguments of a subcommand with its own shape
// check (branch, tag, remote, config): known dangerous options, and
// operands for credential-like paths.
func (g *guard) gitShapeArgs(sub string, rest []string, f *finding) {
	for i, a := range rest {
		if a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") {
			g.gitOperand(a, f)
			continue
		}
		for _, d := range gitDangers {
			if optMatches(a, d.opt) {
				f.prompt(High, "git "+sub+" "+d.opt+" "+d.why)
			}
		}
		if sub == "config" {
			g.gitConfigSource(rest, i, f)
		}
	}
}

// gitConfigSource judges the file git config reads when rest[i] names
// one: -f FILE, --file[=]FILE, --blob[=]BLOB.
func (g *guard) gitConfigSource(rest []string, i int, f *finding) {
	name, v, attached := strings.Cut(rest[i], "=")
	if name == "-f" && attached {
		return // -f=x: a file named "=x"; git config reads it, the guard asks (gitConfig)
	}
	if !attached {
		if i+1 >= len(rest) {
			return
		}
		v = rest[i+1]
	}
	switch name {
	case "--blob":
		// git config --blob prints a blob written as configuration: only
		// rev:path says which file it is (stop 51: an id from git ls-tree
		// printed a committed credential).
		if !strings.Contains(v, ":") || strings.HasSuffix(v, ":") {
			f.prompt(High, "git config --blob "+v+" reads an object not named by its path (rev:path), which may be any file in git's history")
		}
		g.gitOperand(v, f) // rev:path, judged by its path
	case "-f", "--file":
		g.readPath(v, f)
	}
}
