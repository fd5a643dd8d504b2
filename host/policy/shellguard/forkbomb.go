package shellguard

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The fork bombs written in shell besides a self-calling function
// (destructive.go): an endless loop that starts processes in the
// background, a command that re-runs its own $0 in the background or a
// pipe, and xargs with no bound on parallel processes. The sandbox's
// process limit bounds what slips past; these are refused before anyone
// is asked, because nobody means them.

// maxXargsProcs is the largest xargs -P the guard lets be asked about;
// 0 means "as many as possible".
const maxXargsProcs = 1024

// xargsUnbounded reports the -P value of xargs's arguments args (read up
// to the command, as xargs reads them) when it is 0 or above
// maxXargsProcs.
func xargsUnbounded(args []string) (string, bool) {
	for _, v := range xargsGetopt.parse(args).values("max-procs") {
		// A value that is no number, xargs itself refuses.
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err == nil && (n <= 0 || n > maxXargsProcs) {
			return v, true
		}
	}
	return "", false
}

// endlessSpawningLoop reports a loop that never ends by itself and starts
// a background process on every turn: while true / while : / until false
// / for ((;;)) whose body holds a background statement and no break,
// exit, return or wait.
func endlessSpawningLoop(n syntax.Node) bool {
	var body []*syntax.Stmt
	switch l := n.(type) {
	case *syntax.WhileClause:
		if !alwaysTrue(l.Cond, l.Until) {
			return false
		}
		body = l.Do
	case *syntax.ForClause:
		c, ok := l.Loop.(*syntax.CStyleLoop)
		if !ok || c.Cond != nil {
			return false
		}
		body = l.Do
	default:
		return false
	}
	spawns, ends := false, false
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Stmt:
				if n.Background {
					spawns = true
				}
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					switch readWord(n.Args[0]).text {
					case "break", "exit", "return", "wait":
						ends = true
					}
				}
			}
			return true
		})
	}
	return spawns && !ends
}

// alwaysTrue: a loop condition that is a lone true, :, or (until) false.
func alwaysTrue(cond []*syntax.Stmt, until bool) bool {
	if len(cond) != 1 {
		return false
	}
	switch c := cond[0].Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) != 1 || len(c.Assigns) != 0 {
			return false
		}
		w := readWord(c.Args[0])
		if !w.literal {
			return false
		}
		if until {
			return w.text == "false"
		}
		return w.text == "true" || w.text == ":"
	case *syntax.ArithmCmd:
		if l, ok := c.X.(*syntax.Word); ok && !until {
			v := readWord(l)
			return v.literal && v.text != "0" && isDigits(v.text)
		}
	}
	return false
}

// reExecSelf reports a command run in the background or in a pipe whose
// program is $0: the script or shell starting itself again.
func reExecSelf(s *syntax.Stmt) bool {
	found := false
	var visit func(s *syntax.Stmt, spawned bool)
	visit = func(s *syntax.Stmt, spawned bool) {
		spawned = spawned || s.Background
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			if spawned && len(c.Args) > 0 && isDollarZero(c.Args[0]) {
				found = true
			}
		case *syntax.BinaryCmd:
			pipe := c.Op == syntax.Pipe || c.Op == syntax.PipeAll
			visit(c.X, spawned || pipe)
			visit(c.Y, spawned || pipe)
		case *syntax.Block:
			for _, x := range c.Stmts {
				visit(x, spawned)
			}
		case *syntax.Subshell:
			for _, x := range c.Stmts {
				visit(x, spawned)
			}
		}
	}
	visit(s, false)
	return found
}

const reExecReason = "fork bomb: runs itself again ($0) in the background or in a pipe"

// isDollarZero: $0, "$0" or ${0}.
func isDollarZero(w *syntax.Word) bool {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "0" && pe.Exp == nil && pe.Repl == nil && pe.Index == nil && !pe.Length
}
