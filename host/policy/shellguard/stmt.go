package shellguard

import (
	"mvdan.cc/sh/v3/syntax"
)

// stmt judges one statement. A pipeline or list is judged part by part;
// every other compound form needs approval as a whole, and is scanned for
// destructive payloads inside.
func (g *guard) stmt(s *syntax.Stmt, src string, depth int, f *finding, parts *[]Part) {
	for _, c := range s.Comments {
		g.comment(c, f)
	}
	var own finding
	if s.Background {
		own.prompt(High, "runs in the background (&)")
	}
	if reExecSelf(s) {
		own.block(reExecReason)
	}
	if s.Coprocess || s.Disown {
		own.prompt(High, "runs as a coprocess")
	}
	for _, r := range s.Redirs {
		g.redirect(r, &own)
	}
	if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok {
		// The statement's own redirections and & apply to every part.
		first := 0
		if parts != nil {
			first = len(*parts)
		}
		before := g.saveCwd()
		g.stmt(bc.X, src, depth, f, parts)
		after, certain := g.certainCdBegin(bc, before)
		g.stmt(bc.Y, src, depth, f, parts)
		g.certainCdEnd(after, certain)
		if bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll {
			g.feedPipe(bc.X, g.consumer, depth, &own)
		}
		f.merge(own)
		if parts != nil && (own.decision != Allow || own.risk != Low) {
			for i := first; i < len(*parts); i++ {
				(*parts)[i].merge(own)
			}
		}
		return
	}
	if !g.scanned && needsScan(s) {
		before := g.saveCwd()
		g.scanDestructive(s, depth, &own)
		// The scan follows the cds inside s; what follows s may be in
		// any directory the scan saw.
		seen := g.everyCwd()
		g.restoreCwd(before)
		for _, d := range seen {
			if d != g.cwd && !containsString(g.altCwds, d) {
				g.altCwds = append(g.altCwds[:len(g.altCwds):len(g.altCwds)], d)
			}
		}
		g.scanned = true
		defer func() { g.scanned = false }()
	}
	g.consumer = stdinConsumer{}
	program := g.command(s.Cmd, src, depth, &own)
	g.feedStdin(s, g.consumer, depth, &own)
	g.noteCd(s)
	f.merge(own)
	if parts != nil {
		*parts = append(*parts, own.part(textOf(src, s), program))
	}
}

// command judges the command of a statement and returns the program it
// runs, when known.
func (g *guard) command(cmd syntax.Command, src string, depth int, f *finding) string {
	switch c := cmd.(type) {
	case nil:
		// Redirections alone (`> file`): judged with the redirections.
		return ""
	case *syntax.CallExpr:
		return g.call(c, depth, f)
	case *syntax.TimeClause:
		// `time cmd` reports timing and runs cmd: judge cmd.
		if c.Stmt == nil {
			return "time"
		}
		var inner finding
		g.stmt(c.Stmt, src, depth, &inner, nil)
		f.merge(inner)
		return "time"
	case *syntax.Subshell:
		f.prompt(High, "runs a subshell ( ... )")
		g.nested(c.Stmts, src, depth, f)
	case *syntax.Block:
		f.prompt(High, "runs a command group { ... }")
		g.nested(c.Stmts, src, depth, f)
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause:
		f.prompt(High, "uses shell control flow (if, while, for, case)")
	case *syntax.FuncDecl:
		f.prompt(High, "defines a shell function")
	case *syntax.ArithmCmd, *syntax.LetClause:
		f.prompt(High, shellChange+"evaluates arithmetic that can assign shell variables")
	case *syntax.TestClause:
		f.prompt(High, "uses a [[ ... ]] test, which can expand and evaluate")
	case *syntax.DeclClause:
		f.prompt(High, shellChange+"declares or exports shell variables")
	case *syntax.CoprocClause:
		f.prompt(High, shellChange+"runs a coprocess")
	default:
		f.prompt(High, "uses a shell construct the guard does not know")
	}
	return ""
}

// nested judges the statements inside a group, so their reasons show.
func (g *guard) nested(stmts []*syntax.Stmt, src string, depth int, f *finding) {
	for _, s := range stmts {
		var inner finding
		g.stmt(s, src, depth, &inner, nil)
		f.merge(inner)
	}
}

// needsScan reports whether a statement may hide commands that the direct
// reading does not judge: substitutions, compound commands, redirections
// with expansions.
func needsScan(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return s.Cmd != nil
	}
	for _, a := range call.Assigns {
		if a.Value != nil && !plainWord(a.Value) || a.Array != nil || a.Index != nil {
			return true
		}
	}
	for _, w := range call.Args {
		if !plainWord(w) {
			return true
		}
	}
	for _, r := range s.Redirs {
		if r.Word != nil && !plainWord(r.Word) {
			return true
		}
	}
	return false
}

// plainWord reports a word made of literal and quoted-literal parts only.
func plainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch q := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, dp := range q.Parts {
				if _, ok := dp.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// textOf is the source text of a node.
func textOf(src string, n syntax.Node) string {
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(src) || a > b {
		return ""
	}
	return src[a:b]
}

func (f finding) part(text, program string) Part {
	p := Part{Text: text, Program: program, Decision: f.decision, Risk: f.risk}
	p.Reasons = append(p.Reasons, f.blocks...)
	for _, r := range f.reasons {
		if !containsString(p.Reasons, r) {
			p.Reasons = append(p.Reasons, r)
		}
	}
	return p
}

func (p *Part) merge(f finding) {
	p.Decision = max(p.Decision, f.decision)
	p.Risk = max(p.Risk, f.risk)
	for _, r := range append(append([]string(nil), f.blocks...), f.reasons...) {
		if !containsString(p.Reasons, r) {
			p.Reasons = append(p.Reasons, r)
		}
	}
}
