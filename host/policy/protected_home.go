package policy

import (
	"os"
	"path/filepath"
	"strings"
)

// homeConfigWhy says why p (as written, or where real leads) is the
// operator's home configuration: anything under a dot-entry of the home
// directory (~/.bashrc, ~/.profile, ~/.gitconfig, ~/.config/..., ~/.ssh/...,
// ~/.local/bin/...) or under ~/bin, which Debian's .profile puts on PATH.
// A closed world: a login, a shell, git, an editor or a package manager
// reads such files as programs, or as configuration naming programs,
// outside any sandbox, and a list of the ones that do is never complete.
// With the home as workspace (or a workspace above it) a core's
// `allow:write_file` wrote .bashrc, .profile, .zshrc and .gitconfig
// unasked (stop 52, core_rule_home_startup.txtar). "" when p is none of
// them or there is no home.
func homeConfigWhy(p string, real RealPath) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || !filepath.IsAbs(home) {
		return ""
	}
	homes := []string{filepath.Clean(home)}
	if rh, err := realPath(homes[0]); err == nil && rh != homes[0] {
		homes = append(homes, rh)
	}
	for _, h := range homes {
		for _, q := range []string{p, real.Abs} {
			rel, in := within(h, q)
			if !in || rel == "." { // the home itself is no configuration
				continue
			}
			first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
			if strings.HasPrefix(first, ".") || first == "bin" {
				return "it is your home's configuration (~/" + filepath.ToSlash(rel) + "), which your shell, session, git and other programs read and run outside the sandbox"
			}
		}
	}
	return ""
}
