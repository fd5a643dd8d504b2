package shellguard

import "strings"

// gitOptTable is the closed world of one git subcommand's options: what
// is not here (an abbreviation, a negation not listed, an option that
// writes, runs a program or opens a pager) makes the command ask. Listing
// exact spellings sidesteps parse-options' unique-prefix matching: an
// abbreviation is simply not in the table.
type gitOptTable struct {
	flags    map[string]bool // take no value
	values   map[string]bool // take a value: --x=v, --x v, -xv, -x v
	optional map[string]bool // take a value only attached: --x=v, -xv
	files    map[string]bool // of values and optional: name a file that is read
	numeric  bool            // -<n> (log's count, grep's context)
}

// parseGitOpts builds a table from a spec: "--x" a flag, "--x=" a value,
// "--x[=]" an optional value, a trailing "@" a file the value names; the
// same for short "-x".
func parseGitOpts(numeric bool, specs ...string) gitOptTable {
	t := gitOptTable{flags: map[string]bool{}, values: map[string]bool{}, optional: map[string]bool{}, files: map[string]bool{}, numeric: numeric}
	for _, spec := range specs {
		for _, s := range strings.Fields(spec) {
			file := strings.HasSuffix(s, "@")
			s = strings.TrimSuffix(s, "@")
			switch {
			case strings.HasSuffix(s, "[=]"):
				s = strings.TrimSuffix(s, "[=]")
				t.optional[s] = true
			case strings.HasSuffix(s, "="):
				s = strings.TrimSuffix(s, "=")
				t.values[s] = true
			default:
				t.flags[s] = true
			}
			if file {
				t.files[s] = true
			}
		}
	}
	return t
}

// gitDiffOpts are the diff output options (diff, log -p, show, diff-*).
// Left out: --output (writes), --ext-diff and --textconv (run programs).
const gitDiffOpts = `-p -u --patch -s --no-patch -U= --unified= --output-indicator-new= --output-indicator-old=
--output-indicator-context= --raw --patch-with-raw -t --indent-heuristic --no-indent-heuristic --minimal
--patience --histogram --anchored= --diff-algorithm= --stat[=] --stat-width= --stat-name-width=
--stat-graph-width= --stat-count= --compact-summary --numstat --shortstat -X[=] --dirstat[=] --cumulative
--dirstat-by-file[=] --summary --patch-with-stat -z --name-only --name-status --submodule[=] --color[=]
--no-color --color-moved[=] --no-color-moved --color-moved-ws= --no-color-moved-ws --word-diff[=]
--word-diff-regex= --color-words[=] --no-renames --rename-empty --no-rename-empty --check
--ws-error-highlight= --full-index --binary --abbrev[=] --no-abbrev -B[=] --break-rewrites[=] -M[=]
--find-renames[=] -C[=] --find-copies[=] --find-copies-harder -D --irreversible-delete -l= --diff-filter=
-S= -G= --find-object= --pickaxe-all --pickaxe-regex -O=@ --skip-to= --rotate-to= -R --relative[=]
--no-relative -a --text --ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w
--ignore-all-space --ignore-blank-lines -I= --ignore-matching-lines= --inter-hunk-context= -W
--function-context --exit-code --quiet --no-ext-diff --no-textconv --ignore-submodules[=] --src-prefix=
--dst-prefix= --no-prefix --default-prefix --line-prefix= --ita-invisible-in-index --ita-visible-in-index
-c --cc --combined-all-paths -m --diff-merges= --no-diff-merges --dd`

// gitRevOpts are the revision walking and commit formatting options.
// Left out: --show-signature (runs gpg).
const gitRevOpts = `-n= --max-count= --skip= --since= --after= --since-as-filter= --until= --before=
--author= --committer= --grep-reflog= --grep= --all-match --invert-grep -i --regexp-ignore-case
--basic-regexp -E --extended-regexp -F --fixed-strings -P --perl-regexp --remove-empty --merges
--no-merges --min-parents= --max-parents= --no-min-parents --no-max-parents --first-parent
--exclude-first-parent-only --not --all --branches[=] --tags[=] --remotes[=] --glob= --exclude=
--exclude-hidden= --reflog --alternate-refs --single-worktree --ignore-missing --bisect --stdin
--cherry-mark --cherry-pick --left-only --right-only --cherry --walk-reflogs -g --merge --boundary
--simplify-by-decoration --full-history --dense --sparse --simplify-merges --ancestry-path[=]
--show-pulls --date-order --author-date-order --topo-order --reverse --no-walk[=] --do-walk --pretty[=]
--format= --abbrev-commit --no-abbrev-commit --oneline --encoding= --expand-tabs[=] --no-expand-tabs
--notes[=] --no-notes --show-notes[=] --standard-notes --no-standard-notes --relative-date --date=
--parents --children --left-right --graph --no-graph --show-linear-break[=] --decorate[=] --no-decorate
--decorate-refs= --decorate-refs-exclude= --clear-decorations --source --mailmap --use-mailmap
--no-mailmap --no-use-mailmap --full-diff --log-size -L= --follow --no-follow --max-age= --min-age=`

// gitTables are the options of each read-only subcommand. branch, tag,
// remote and config have their own shape checks (gitShapes) instead.
var gitTables = func() map[string]gitOptTable {
	log := parseGitOpts(true, gitRevOpts, gitDiffOpts)
	diff := parseGitOpts(false, gitDiffOpts, "--cached --staged --merge-base --no-index -0 -1 -2 -3 --base --ours --theirs")
	plumbingDiff := parseGitOpts(false, gitDiffOpts, `-r --root --stdin -v --no-commit-id --pretty[=] --format= --always
--merge-base --cached -0 -1 -2 -3 --base --ours --theirs`)
	blame := parseGitOpts(false, `-b --root --show-stats -f --show-name -n --show-number -p --porcelain
--line-porcelain -l -t -s -e --show-email -w -M[=] -C[=] -L= --reverse --first-parent --incremental
--encoding= --contents=@ --date= --progress --no-progress --abbrev[=] --color-lines --color-by-age
--minimal --ignore-rev= --ignore-revs-file=@ -S=@ -c`)
	return map[string]gitOptTable{
		"status": parseGitOpts(false, `-s --short -b --branch --show-stash --porcelain[=] --long -v --verbose -u[=]
--untracked-files[=] --ignore-submodules[=] --ignored[=] -z --null --column[=] --no-column --ahead-behind
--no-ahead-behind --renames --no-renames --find-renames[=]`),
		"log":         log,
		"show":        log,
		"whatchanged": log,
		"diff":        diff,
		"diff-tree":   plumbingDiff,
		"diff-files":  plumbingDiff,
		"diff-index":  plumbingDiff,
		"rev-list":    parseGitOpts(true, gitRevOpts, "--count --objects --objects-edge --in-commit-order --no-object-names --timestamp --header --quiet --disk-usage[=] --bisect-all --bisect-vars"),
		"shortlog":    parseGitOpts(true, gitRevOpts, "-n --numbered -s --summary -e --email --group= -c --committer -w[=]"),
		"range-diff":  parseGitOpts(false, gitDiffOpts, "--creation-factor= --no-dual-color --notes[=] --no-notes --left-only --right-only"),
		"blame":       blame,
		"annotate":    blame,
		"grep": parseGitOpts(true, `-n --line-number --no-line-number -i --ignore-case --no-ignore-case -I -w
--word-regexp -v --invert-match -c --count -l --files-with-matches --name-only -L --files-without-match -h
-H --full-name -e= -E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp -o
--only-matching -q --quiet --color[=] --no-color -A= --after-context= -B= --before-context= -C= --context=
--heading --no-heading --break --no-break -p --show-function -W --function-context --cached --untracked
--no-index --exclude-standard --no-exclude-standard --max-depth= -r --recursive --no-recursive -a --text
--no-textconv --and --or --not --all-match -z --null --column --no-column -m= --max-count= --threads= -f=@`),
		"describe": parseGitOpts(false, `--all --tags --contains --abbrev= --candidates= --exact-match --debug
--long --match= --exclude= --always --first-parent --dirty[=] --broken[=]`),
		"rev-parse": parseGitOpts(false, `--sq-quote --keep-dashdash --stop-at-non-option --stuck-long --revs-only
--no-revs --flags --no-flags --default= --prefix= --verify -q --quiet --sq --short[=] --not --abbrev-ref[=]
--symbolic --symbolic-full-name --all --branches[=] --tags[=] --remotes[=] --glob= --exclude=
--exclude-hidden= --disambiguate= --local-env-vars --path-format= --git-dir --git-common-dir
--resolve-git-dir=@ --git-path= --absolute-git-dir --is-inside-git-dir --is-inside-work-tree
--is-bare-repository --is-shallow-repository --shared-index-path --show-object-format[=] --show-toplevel
--show-superproject-working-tree --show-cdup --show-prefix --since= --after= --until= --before=`),
		"ls-files": parseGitOpts(false, `-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage
-u --unmerged -k --killed -f -t -v -z --directory --no-empty-directory --eol --deduplicate -x= --exclude=
-X=@ --exclude-from=@ --exclude-per-directory= --exclude-standard --error-unmatch --with-tree= --full-name
--recurse-submodules --abbrev[=] --debug --sparse --format= --resolve-undo`),
		"ls-tree": parseGitOpts(false, "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree --abbrev[=] --format="),
		"cat-file": parseGitOpts(false, `-t -s -e -p --batch[=] --batch-check[=] --batch-command[=] --batch-all-objects
--follow-symlinks --unordered --buffer -Z -z --allow-unknown-type --use-mailmap --no-use-mailmap --mailmap --no-mailmap`),
		"show-ref": parseGitOpts(false, "--head --branches --tags --heads -d --dereference -s --hash[=] --verify --abbrev[=] -q --quiet --exclude-existing[=] --exists"),
		"for-each-ref": parseGitOpts(false, `--count= --shell -s --perl --python --tcl --sort= --format= --color[=]
--points-at= --merged[=] --no-merged[=] --contains[=] --no-contains[=] --ignore-case --omit-empty --stdin --exclude=`),
		"merge-base":    parseGitOpts(false, "-a --all --octopus --independent --is-ancestor --fork-point"),
		"name-rev":      parseGitOpts(false, "--tags --refs= --exclude= --all --stdin --annotate-stdin --name-only --no-undefined --always"),
		"count-objects": parseGitOpts(false, "-v --verbose -H --human-readable"),
		"check-ignore":  parseGitOpts(false, "-q --quiet -v --verbose --stdin -z -n --non-matching --no-index"),
		"check-attr":    parseGitOpts(false, "-a --all --cached --stdin -z --source="),
		"version":       parseGitOpts(false, "--build-options"),
		"cherry":        parseGitOpts(false, "-v --abbrev[=]"),
		"show-branch": parseGitOpts(false, `-r --remotes -a --all --current --color[=] --no-color --topo-order
--date-order --sparse --more[=] --list --merge-base --independent --no-name --sha1-name --topics -g --reflog[=]`),
		"var":      parseGitOpts(false, "-l"),
		"worktree": parseGitOpts(false, "--porcelain -v --verbose -z --expire="),
		"stash":    parseGitOpts(true, gitRevOpts, gitDiffOpts, "--include-untracked --only-untracked"),
		"reflog":   log,
	}
}()

// checkGitOpts judges a read-only subcommand's arguments against its
// table; operands (revisions, paths, rev:path) are checked for
// credential-like paths.
func (g *guard) checkGitOpts(sub string, args []string, f *finding) {
	t, ok := gitTables[sub]
	if !ok {
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, p := range args[i+1:] {
				g.gitOperand(p, f)
			}
			return
		case a == "-" || !strings.HasPrefix(a, "-"):
			g.gitOperand(a, f)
		case strings.HasPrefix(a, "--"):
			name, value, attached := strings.Cut(a, "=")
			switch {
			case t.flags[name] && !attached:
			case t.optional[name]:
				if attached && t.files[name] {
					g.readPath(value, f)
				}
			case t.values[name]:
				if !attached {
					if i+1 >= len(args) {
						continue
					}
					i++
					value = args[i]
				}
				if t.files[name] {
					g.readPath(value, f)
				} else if name == "-L" {
					g.gitOperand(value, f)
				}
			default:
				f.prompt(High, "git "+sub+" "+name+" is not an option the guard knows to be read-only")
			}
		default:
			i += g.gitShorts(sub, t, args, i, f)
		}
	}
}

// gitShorts judges a cluster of short options (-sb, -n5, -U3, -e foo)
// and returns how many following arguments it took as a value.
func (g *guard) gitShorts(sub string, t gitOptTable, args []string, i int, f *finding) int {
	a := args[i]
	if t.numeric && allDigits(a[1:]) {
		return 0
	}
	for j := 1; j < len(a); j++ {
		o := "-" + a[j:j+1]
		rest := a[j+1:]
		switch {
		case t.flags[o]:
			continue
		case t.optional[o]:
			if t.files[o] && rest != "" {
				g.readPath(rest, f)
			}
			return 0
		case t.values[o]:
			took := 0
			if rest == "" && i+1 < len(args) {
				rest, took = args[i+1], 1
			}
			if t.files[o] {
				g.readPath(rest, f)
			} else if o == "-L" {
				g.gitOperand(rest, f)
			}
			return took
		default:
			f.prompt(High, "git "+sub+" "+o+" is not an option the guard knows to be read-only")
			return 0
		}
	}
	return 0
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// gitOperand checks a revision, a path or rev:path (and -L's
// start,end:path) for credential-like paths: git reads them from the
// repository or the work tree, never outside it.
func (g *guard) gitOperand(a string, f *finding) {
	first, last := a, a
	if i := strings.Index(a, ":"); i >= 0 {
		first, last = a[i+1:], a[strings.LastIndex(a, ":")+1:]
	}
	if g.sensitive(a) || first != "" && g.sensitive(first) || last != "" && g.sensitive(last) {
		f.prompt(High, "touches "+a+", a credential-like path")
	}
}
