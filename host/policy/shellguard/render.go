package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A word that is not literal is still rendered as closely as the guard can
// tell what it becomes, so that a destructive target is seen through it:
// ${X:-/} may be /, ${HOME%/*} is above the home directory, $(echo /) is
// /, $(pwd) is the working directory.

// renderParamOp renders a parameter expansion with an operator.
func renderParamOp(p *syntax.ParamExp) string {
	if p.Param == nil || p.Exp == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil {
		return "${...}"
	}
	known := p.Param.Value == "HOME" || p.Param.Value == "PWD"
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if known {
			return "$" + p.Param.Value
		}
		if p.Exp.Word != nil && p.Exp.Op != syntax.ErrorUnset && p.Exp.Op != syntax.ErrorUnsetOrNull {
			return readWord(p.Exp.Word).text // the value when unset
		}
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if p.Exp.Word != nil {
			return readWord(p.Exp.Word).text
		}
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		// A suffix removed: a prefix of the value, at least its parent
		// when the pattern removes a path component.
		if known {
			return "$" + p.Param.Value + "/.."
		}
	}
	return "${...}"
}

// renderCmdSubst renders a command substitution by what it prints, when
// the guard can read that: one echo, printf or pwd, or a pipeline ending
// in a decoder of such text.
func renderCmdSubst(c *syntax.CmdSubst) string {
	if len(c.Stmts) != 1 {
		return "$(...)"
	}
	if s, ok := c.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(s.Args) == 1 && readWord(s.Args[0]).text == "pwd" {
		return "$PWD"
	}
	text, tokens, ok := feedOf(c.Stmts[0])
	switch {
	case !ok:
		return "$(...)"
	case tokens != nil:
		if len(tokens) == 1 {
			return tokens[0]
		}
		return "$(...)"
	}
	return strings.TrimRight(text, "\n")
}
