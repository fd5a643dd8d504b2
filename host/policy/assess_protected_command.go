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
		if w.State == "" && w.Config == "" || p == "" || strings.HasPrefix(p, "~") {
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
	moves := changesDirectory(f)
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
		why := w.ProtectedWhy(filepath.Clean(abs))
		if why == "" && moves {
			why = w.protectedByName(t)
		}
		if why != "" {
			targets, whys = append(targets, t), append(whys, why)
		}
		return true
	})
	return targets, whys
}

// changesDirectory reports whether the command runs cd, pushd or popd
// anywhere: its redirections may then not be relative to cwd.
func changesDirectory(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || found {
			return !found
		}
		for _, a := range c.Args {
			lit, ok := literalWord(a)
			if !ok {
				break
			}
			if lit == "builtin" || lit == "command" {
				continue
			}
			found = lit == "cd" || lit == "pushd" || lit == "popd"
			break
		}
		return !found
	})
	return found
}

// protectedByName judges a redirect target by its name alone, for a
// command that changes directory first: git's program-running files
// anywhere, the entries of a .git directory (config, hooks/...), the
// core's agent.yaml, and the files of an authored tool. It fails closed:
// an ordinary file named config is asked about too.
func (w Workspace) protectedByName(target string) string {
	clean := filepath.ToSlash(filepath.Clean(target))
	if gitRunsFrom(clean) {
		return "after a change of directory, it may be git configuration that can make git run a program"
	}
	if pathrules.IsClientConfig(clean) || pathrules.IsClientConfigName(filepath.Base(clean)) {
		// cd .claude && echo x > settings.json: an ordinary file of such a
		// name is asked about too.
		return "after a change of directory, it may be an MCP or ACP client's configuration (the command line it starts demiurge with)"
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(clean, "./"), "/")
	for _, e := range gitDirEntries {
		if strings.EqualFold(first, e) {
			// cd .git && echo x > config
			return "after a change of directory, it may be inside a .git directory"
		}
	}
	base := filepath.Base(clean)
	for _, c := range w.Core {
		if filepath.Base(c) == base || base == "tool.yaml" || base == "module.py" {
			return "after a change of directory, it may be part of the agent's core"
		}
	}
	return ""
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
