package shellguard

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"demiurge.dev/shared/pathrules"
)

// MaxCommandBytes bounds what the guard reads; a longer command is not
// reviewed and needs approval.
const MaxCommandBytes = 256 << 10

// maxDepth bounds how deep wrappers, shells' -c strings, eval and find
// -exec are followed into. A payload nested deeper cannot be reviewed, so
// it is blocked: no legitimate command nests six wrappers.
const maxDepth = 6

// Options say where the command runs.
type Options struct {
	// WorkspaceRoot is the absolute workspace directory. rm -rf of it (or
	// of anything above it) is blocked; paths outside it need approval.
	// Empty means unknown: every absolute path counts as outside.
	WorkspaceRoot string
	// Cwd is the absolute directory the command runs in; empty means
	// WorkspaceRoot.
	Cwd string
	// Home is the user's home directory, when known; rm -rf of it is
	// blocked however it is spelt (~, $HOME, the path).
	Home string
	// Sensitive reports credential-like paths; nil means
	// pathrules.IsSensitive. It is asked about each path as written, as
	// cleaned and as resolved (workspace-relative when inside).
	Sensitive func(path string) bool
	// Files is how the guard looks at the file system: it follows the
	// symlinks of the paths a command reads, walks the trees that
	// recursive commands read, and reads git's configuration. nil means
	// OSFiles. WorkspaceRoot and Cwd must be real paths (symlinks already
	// resolved), as the host passes them.
	Files Files
}

// Check reviews one shell command. It never panics and never allows what
// it could not parse or prove literal.
func Check(command string, opts Options) Verdict {
	g := newGuard(opts)
	f, parts := g.review(command, 0, true)
	for _, c := range candidates(command) {
		cf, _ := g.review(c, 0, false)
		if cf.decision > f.decision || cf.risk > f.risk || len(cf.blocks) > len(f.blocks) {
			for _, r := range cf.reasons {
				f.raise(cf.decision, cf.risk, "normalised reading: "+r)
			}
			for _, r := range cf.blocks {
				f.block("normalised reading: " + r)
			}
		}
	}
	return f.verdict(parts)
}

type guard struct {
	root, cwd, home string
	sensitive       func(string) bool
	// rootSensitive: the workspace root itself looks sensitive (a
	// project under ~/.ssh), so its own prefix flags nothing inside it.
	rootSensitive bool
	files         Files
	// repo caches the review of the git repository the cwd is in, for a
	// command holding several git calls.
	repo *repoReview
	// gitDirs are the repositories found from each directory during this
	// check (findGitDir).
	gitDirs map[string]foundGitDir
	// treeLimit bounds a tree walk's entries; 0 means maxTreeEntries.
	treeLimit int
	// scanned is set while the statements inside one that was already
	// scanned for destructive payloads are judged, so that nesting does
	// not scan the same subtree again at every level.
	scanned bool
	// consumer is what the program judged last does with its standard
	// input (set by wrapShell and wrapXargs), for feeds.go.
	consumer stdinConsumer
	// work counts the brace alternatives and inner sources reviewed, so
	// that one command cannot make the guard's work explode (maxWork).
	work int
	// positional are the arguments after sh -c CODE ($0, $1, ...), while
	// CODE is reviewed.
	positional []string
	// altCwds are the other directories the command may be in after a
	// cd (cwd.go).
	altCwds []string
}

// maxWork bounds the brace alternatives and the inner sources (shell code
// in arguments, interpreter code, feeds) one command may make the guard
// review; past it the command is blocked, unreviewed.
const maxWork = 4096

// maxNesting bounds bracket nesting: the parser's error paths grow
// quadratic with it, and no legitimate command nests that deep.
const maxNesting = 64

// maxStmts bounds the statements reviewed: judging nests as deep as the
// syntax tree, and a command of thousands of statements is no one-liner.
const maxStmts = 512

// countStmts counts statements in file, stopping at limit.
func countStmts(file *syntax.File, limit int) int {
	n := 0
	syntax.Walk(file, func(node syntax.Node) bool {
		if _, ok := node.(*syntax.Stmt); ok {
			n++
		}
		return n < limit
	})
	return n
}

// nestingDepth is the deepest nesting of ( and { in src, quotes ignored.
func nestingDepth(src string) int {
	d, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{':
			d++
			deepest = max(deepest, d)
		case ')', '}':
			if d > 0 {
				d--
			}
		}
	}
	return deepest
}

func newGuard(o Options) *guard {
	g := &guard{root: cleanAbs(o.WorkspaceRoot), cwd: cleanAbs(o.Cwd), home: cleanAbs(o.Home), sensitive: o.Sensitive}
	if g.cwd == "" {
		g.cwd = g.root
	}
	g.files = o.Files
	if g.files == nil {
		g.files = OSFiles{}
	}
	if g.sensitive == nil {
		g.sensitive = pathrules.IsSensitive
		g.rootSensitive = g.root != "" && rootIsSensitive(g.root)
	} else {
		g.rootSensitive = g.root != "" && g.sensitive(g.root)
	}
	return g
}

// lastRoot is pathrules.IsSensitive's answer for the last workspace root
// judged: every check asks it of the same root, and it is a function of
// the string alone (it looks at no file), so the answer cannot go stale.
var lastRoot atomic.Pointer[rootJudgement]

type rootJudgement struct {
	root      string
	sensitive bool
}

func rootIsSensitive(root string) bool {
	if j := lastRoot.Load(); j != nil && j.root == root {
		return j.sensitive
	}
	j := &rootJudgement{root: root, sensitive: pathrules.IsSensitive(root)}
	lastRoot.Store(j)
	return j.sensitive
}

// cleanAbs keeps p only when it is an absolute path.
func cleanAbs(p string) string {
	if p == "" || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return ""
	}
	return filepath.Clean(p)
}

// reader is a parser with its input reader, reused across checks.
type reader struct {
	p *syntax.Parser
	r strings.Reader
}

var parsers = sync.Pool{New: func() any {
	return &reader{p: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))}
}}

// review reads src as bash and judges it; parts are collected only when
// withParts is set (the raw reading at the top level).
func (g *guard) review(src string, depth int, withParts bool) (finding, []Part) {
	var f finding
	switch {
	case depth > maxDepth:
		f.block("shell code nested too deep to review")
		return f, nil
	case strings.TrimSpace(src) == "":
		f.prompt(High, "empty command")
		return f, nil
	case len(src) > MaxCommandBytes:
		f.prompt(High, fmt.Sprintf("command is longer than %d bytes and was not reviewed", MaxCommandBytes))
		return f, nil
	case !utf8.ValidString(src):
		f.prompt(High, "command is not valid UTF-8")
		return f, nil
	case strings.ContainsRune(src, 0):
		f.prompt(High, "command contains a NUL byte")
		return f, nil
	}
	if nestingDepth(src) > maxNesting {
		f.prompt(High, fmt.Sprintf("command nests brackets more than %d deep and was not reviewed", maxNesting))
		return f, nil
	}
	if hiddenText(src) {
		f.prompt(High, "command contains control or invisible characters that can hide text")
	}
	file, simple := simpleFile(src)
	if !simple {
		rd := parsers.Get().(*reader)
		rd.r.Reset(src)
		var err error
		file, err = rd.p.Parse(&rd.r, "")
		rd.r.Reset("")
		parsers.Put(rd)
		if err != nil {
			f.prompt(High, "command cannot be parsed as shell: "+err.Error())
			return f, nil
		}
	}
	// A statement takes at least two bytes, so short commands need no count.
	if len(src) > 2*maxStmts && countStmts(file, maxStmts+1) > maxStmts {
		f.prompt(High, fmt.Sprintf("command holds more than %d statements and was not reviewed", maxStmts))
		return f, nil
	}
	var parts []Part
	if depth == 0 {
		// Each reading starts where the command runs.
		defer g.restoreCwd(g.saveCwd())
	}
	// What the statements of this source feed is theirs; the statement
	// whose argument holds this source keeps its own consumer.
	defer func(c stdinConsumer) { g.consumer = c }(g.consumer)
	// Statements of a new source are scanned for destructive payloads
	// afresh, whatever the caller was doing.
	outer := g.scanned
	g.scanned = false
	defer func() { g.scanned = outer }()
	for _, s := range file.Stmts {
		g.stmt(s, src, depth, &f, partSink(withParts, &parts))
	}
	for _, c := range file.Last {
		g.comment(c, &f)
	}
	return f, parts
}

// partSink returns where finished parts go, or nil when they are not
// wanted.
func partSink(want bool, parts *[]Part) *[]Part {
	if want {
		return parts
	}
	return nil
}

func (g *guard) comment(c syntax.Comment, f *finding) {
	if strings.ContainsAny(c.Text, "$`") {
		f.prompt(Medium, "a comment holds expansion syntax")
	}
}

// verdict turns a finding into the public verdict, blocking reasons
// first.
func (f finding) verdict(parts []Part) Verdict {
	v := Verdict{Decision: f.decision, Risk: f.risk, Parts: parts, Reasons: []string{}}
	v.Reasons = append(v.Reasons, f.blocks...)
	for _, r := range f.reasons {
		if !containsString(v.Reasons, r) {
			v.Reasons = append(v.Reasons, r)
		}
	}
	return v
}
