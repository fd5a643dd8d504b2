package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A cd moves the directory that relative removal targets are read from
// (cd .. && rm -rf proj removes the workspace). The guard cannot always
// tell whether a cd ran (cd x; ..., a cd in a branch, a subshell or a
// pipe stage), so it keeps every directory the command may be in: cwd is
// the latest, altCwds the others, and a relative target is rootish when
// it is from any of them. Only "cd DIR && ..." is certain: what follows
// runs in DIR. A directory the guard cannot read (cd "$X", cd -, popd)
// counts as /, the worst it can be.

// maxCwds bounds the directories kept; past it, / stands for the rest.
const maxCwds = 16

// cwdState is saved and restored around one review.
type cwdState struct {
	cwd  string
	alts []string
}

func (g *guard) saveCwd() cwdState { return cwdState{g.cwd, g.altCwds} }

func (g *guard) restoreCwd(s cwdState) { g.cwd, g.altCwds = s.cwd, s.alts }

// moveTo makes dir the latest directory, keeping the previous one as an
// alternative.
func (g *guard) moveTo(dir string) {
	if g.cwd != "" && g.cwd != dir && !containsString(g.altCwds, g.cwd) {
		if len(g.altCwds) >= maxCwds {
			dir = "/"
		} else {
			g.altCwds = append(g.altCwds[:len(g.altCwds):len(g.altCwds)], g.cwd)
		}
	}
	g.cwd = dir
}

// cdIn returns the directory a statement's cd moves to, when it is a cd
// (also under builtin or command).
func (g *guard) cdIn(s *syntax.Stmt) (string, bool) {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || !mayChangeDir(c) {
		return "", false
	}
	argv := make([]string, len(c.Args))
	for i, w := range c.Args {
		argv[i] = readWord(w).text
	}
	return g.cdTarget(argv)
}

// mayChangeDir is a cheap test of a call's first word, before its words
// are read.
func mayChangeDir(c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		return false
	}
	switch readWord(c.Args[0]).text {
	case "cd", "pushd", "popd", "chdir", "builtin", "command":
		return true
	}
	return false
}

// cdTarget reads cd, pushd and popd.
func (g *guard) cdTarget(argv []string) (string, bool) {
	for len(argv) > 0 && (argv[0] == "builtin" || argv[0] == "command") {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return "", false
	}
	switch argv[0] {
	case "cd", "pushd", "chdir":
	case "popd":
		return "/", true
	default:
		return "", false
	}
	var dir string
	for i, a := range argv[1:] {
		if a == "--" {
			if i+2 < len(argv) {
				dir = argv[i+2]
			}
			break
		}
		if len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "LPe@") == "" {
			continue
		}
		dir = a
		break
	}
	switch {
	case dir == "":
		if g.home == "" {
			return unknownHome, true
		}
		return g.home, true
	case dir == "-" || strings.HasPrefix(dir, "+") || strings.HasPrefix(dir, "-"):
		return "/", true // $OLDPWD or the directory stack
	}
	p, ok := g.expandTarget(dir)
	if !ok || p == "" {
		return "/", true
	}
	if !strings.HasPrefix(p, "/") {
		if g.cwd == "" {
			return "/", true
		}
		p = g.cwd + "/" + p
	}
	return "/" + strings.Join(g.walkSegments(p), "/"), true
}

// noteCd moves the directory when s is a cd.
func (g *guard) noteCd(s *syntax.Stmt) {
	if dir, ok := g.cdIn(s); ok {
		g.moveTo(dir)
	}
}

// certainCdBegin starts "cd DIR && Y": DIR is the one directory for Y.
// certainCdEnd puts the previous directories back as alternatives.
func (g *guard) certainCdBegin(bc *syntax.BinaryCmd, before cwdState) (cwdState, bool) {
	if bc.Op != syntax.AndStmt || len(bc.X.Redirs) > 0 {
		return cwdState{}, false
	}
	if _, ok := g.cdIn(bc.X); !ok {
		return cwdState{}, false
	}
	after := g.saveCwd()
	g.altCwds = before.alts
	return after, true
}

func (g *guard) certainCdEnd(after cwdState, certain bool) {
	if !certain {
		return
	}
	for _, d := range after.alts {
		if !containsString(g.altCwds, d) && d != g.cwd {
			g.altCwds = append(g.altCwds[:len(g.altCwds):len(g.altCwds)], d)
		}
	}
}

// everyCwd lists the directories the command may be in.
func (g *guard) everyCwd() []string {
	if len(g.altCwds) == 0 {
		return []string{g.cwd}
	}
	return append([]string{g.cwd}, g.altCwds...)
}
