package policy

import (
	"path/filepath"
	"strings"

	"demiurge.dev/host/policy/shellguard"
	"demiurge.dev/shared/pathrules"
)

// The active core and the files that make git run programs are the
// operator's (issue 11 part 2): a write to them changes what the agent may
// do (a tool.yaml with approval_policy auto, an approvals: rule, a hook,
// core.fsmonitor). Such a write always asks; a broad rule or a rule in the
// core never covers it, only the operator's answer or an --approve rule
// naming the exact path (approval.Resolver).

// ProtectedWhy says why writing the absolute clean path p changes what
// the agent may do, or "" when it does not. It looks at p as written and
// as its symlinks lead.
func (w Workspace) ProtectedWhy(p string) string {
	return w.protectedWhy(p, w.Real(p))
}

func (w Workspace) protectedWhy(p string, real RealPath) string {
	for _, c := range w.Core {
		if c == "" {
			continue
		}
		if _, in := within(c, p); in {
			return "it is part of the agent's core (" + c + ")"
		}
		if _, in := within(c, real.Abs); in {
			return "it leads into the agent's core (" + c + ")"
		}
		if rc, err := realPath(c); err == nil && rc != c {
			if _, in := within(rc, real.Abs); in {
				return "it leads into the agent's core (" + c + ")"
			}
		}
	}
	if rel, in := within(w.Root, p); in && gitRunsFrom(rel) {
		return "it is git configuration that can make git run a program (" + rel + ")"
	}
	if real.Inside && gitRunsFrom(real.Rel) {
		return "it leads to git configuration that can make git run a program (" + real.Rel + ")"
	}
	if why := gitReachWhy(w.Root, p, real.Abs); why != "" {
		return why
	}
	if rel, in := within(w.Root, p); in && pathrules.IsClientConfig(rel) {
		return "it is an MCP or ACP client's configuration, which holds the command line the client starts servers and agents with, demiurge's own --approve and --sandbox included (" + rel + ")"
	}
	if real.Inside && pathrules.IsClientConfig(real.Rel) {
		return "it leads to an MCP or ACP client's configuration, which holds the command line the client starts servers and agents with, demiurge's own --approve and --sandbox included (" + real.Rel + ")"
	}
	return homeConfigWhy(p, real)
}

// gitDirEntries are the parts of a .git directory that name programs or
// other configuration: config and its worktree form, hooks, the info
// directory (attributes select drivers), commondir and worktrees (another
// repository's config), modules (submodules' own repositories).
var gitDirEntries = []string{"config", "config.worktree", "commondir", "gitdir", "hooks", "info", "worktrees", "modules"}

// gitRunsFrom reports whether a workspace-relative, slash-separated path
// is one of git's program-running files at any depth: .git/config,
// .git/hooks/..., .gitmodules, .gitattributes, or a .git entry itself
// (a .git file redirects to another repository).
func gitRunsFrom(rel string) bool {
	segs := strings.Split(filepath.ToSlash(rel), "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case strings.EqualFold(seg, ".gitmodules") || strings.EqualFold(seg, ".gitattributes"):
			if last {
				return true
			}
		case strings.EqualFold(seg, ".git"):
			if last {
				return true
			}
			for _, e := range gitDirEntries {
				if strings.EqualFold(segs[i+1], e) {
					return true
				}
			}
		}
	}
	return false
}

// InState reports whether the absolute clean path p, as written or as its
// symlinks lead, lies in the host's state directory or its configuration
// directory (Config).
func (w Workspace) InState(p string) bool {
	if w.State == "" && w.Config == "" {
		return false
	}
	return w.inState(p, w.Real(p).Abs)
}

// inState is InState for a path whose real form is known.
func (w Workspace) inState(p, real string) bool {
	if w.RunTree {
		_, in := within(w.Root, p)
		_, realIn := within(w.Root, real)
		if rr := w.realRoot; rr != "" && !realIn {
			_, realIn = within(rr, real)
		}
		if in && realIn {
			return false
		}
	}
	var states []string
	if w.State != "" {
		states = append(states, w.State)
		rs := w.realState
		if rs == "" {
			rs, _ = realPath(w.State)
		}
		if rs != "" && rs != w.State {
			states = append(states, rs)
		}
	}
	if w.Config != "" {
		states = append(states, w.Config)
		if rc, err := realPath(w.Config); err == nil && rc != w.Config {
			states = append(states, rc)
		}
	}
	for _, s := range states {
		if _, in := within(s, p); in {
			return true
		}
		if _, in := within(s, real); in {
			return true
		}
	}
	return false
}

// gitReachWhy says why p (real: as its links lead) is configuration of
// the workspace's repository under another name: a file its
// configuration includes, core.attributesFile, or a file in its
// core.hooksPath (shellguard.ReachOfGitConfig). It is read again on every
// call: the operator may change the configuration at any time.
func gitReachWhy(root, p, real string) string {
	if root == "" {
		return ""
	}
	reach := shellguard.ReachOfGitConfig(root)
	matches := func(target string, dir bool) bool {
		forms := []string{target}
		if rt, err := realPath(target); err == nil && rt != target {
			forms = append(forms, rt)
		}
		for _, t := range forms {
			for _, q := range []string{p, real} {
				if q == t {
					return true
				}
				if _, in := within(t, q); dir && in {
					return true
				}
			}
		}
		return false
	}
	for _, f := range reach.Files {
		if matches(f, false) {
			return "it is a file the repository's git configuration reads as configuration too (include.path or core.attributesFile: " + f + "), which can make git run a program"
		}
	}
	for _, d := range reach.Dirs {
		if matches(d, true) {
			return "it is in the hooks directory the repository's git configuration names (core.hooksPath: " + d + "), whose programs git runs"
		}
	}
	for _, f := range reach.Programs {
		if matches(f, true) {
			return "it is a program, or what one reads, that a value of the repository's git configuration names (" + f + "), which the operator's git runs"
		}
	}
	// A relative word of a value is also relative to any directory git
	// runs in (the pager of `git -p version` in a subdirectory).
	roots := []string{root}
	if rr, err := realPath(root); err == nil && rr != root {
		roots = append(roots, rr)
	}
	for _, pair := range [][2]string{{roots[0], p}, {roots[len(roots)-1], real}} {
		rel, in := within(pair[0], pair[1])
		if !in {
			continue
		}
		for _, n := range reach.Names {
			if strings.Contains("/"+filepath.ToSlash(rel)+"/", "/"+filepath.ToSlash(n)+"/") {
				return "it is a program, or what one reads, that a value of the repository's git configuration names (" + n + ", relative to the directory git runs in), which the operator's git runs"
			}
		}
	}
	return ""
}
