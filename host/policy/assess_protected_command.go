package policy

import (
	"path/filepath"
	"strings"

	"demiurge.dev/shared/pathrules"
	"mvdan.cc/sh/v3/syntax"
)

// guardSensitive is the shell guard's Sensitive check for a command that
// runs in cwd: the shared credential-like list, and every path that
// resolves into the host's state directory (a workspace symlink st ->
// STATE makes `cat st/packages/lock.json` look like a workspace read).
// The guard asks with paths as written (relative to cwd), cleaned, and
// workspace-relative; a relative one is tried against both directories.
func (w Workspace) guardSensitive(cwd string) func(string) bool {
	return func(p string) bool {
		if pathrules.IsSensitive(p) {
			return true
		}
		if w.State == "" || p == "" || strings.HasPrefix(p, "~") {
			return false
		}
		if filepath.IsAbs(p) {
			return w.InState(filepath.Clean(p))
		}
		return w.InState(filepath.Join(cwd, p)) || w.InState(filepath.Join(w.Root, p))
	}
}

// protectedRedirects are the literal targets of a command's writing
// redirections (>, >>, >|, &>, <>, ...) that Workspace.ProtectedWhy
// protects, resolved against cwd, with why. A target that is not a
// literal word is the shell guard's business: it already asks about it.
// A command that does not parse yields nothing here; the guard refuses
// to allow it.
func (w Workspace) protectedRedirects(command, cwd string) (targets, whys []string) {
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, nil
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if !ok || r.Word == nil || !writesFile(r.Op) {
			return true
		}
		t, ok := literalWord(r.Word)
		if !ok || t == "" {
			return true
		}
		abs := t
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, t)
		}
		if why := w.ProtectedWhy(filepath.Clean(abs)); why != "" {
			targets, whys = append(targets, t), append(whys, why)
		}
		return true
	})
	return targets, whys
}

func writesFile(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut, syntax.DplOut:
		return true
	}
	return false
}

// literalWord is the word's value when it is made only of literal text
// and quotes without expansions.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
