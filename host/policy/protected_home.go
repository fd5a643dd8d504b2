package policy

import (
	"os"
	"path/filepath"
	"strings"
)

// homeStartup are the files, relative to the operator's home directory,
// that a login, a shell or git (in every repository) reads as programs or
// as configuration naming programs, outside any sandbox: the next shell
// the operator opens runs what .bashrc says. A directory protects what is
// under it. With the home as workspace (or a workspace above it) a core's
// `allow:write_file` wrote .bashrc, .profile, .zshrc and .gitconfig
// unasked (stop 52, core_rule_home_startup.txtar).
var homeStartup = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bashrc.d",
	".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout",
	".xprofile", ".xsessionrc", ".xinitrc", ".xsession", ".pam_environment",
	".gitconfig", ".config/git",
	".config/fish", ".config/autostart", ".config/systemd", ".config/environment.d",
	".local/share/systemd",
}

// homeStartupWhy says why p (as written, or where real leads) is one of
// homeStartup under the operator's home directory; "" when it is not or
// there is no home.
func homeStartupWhy(p string, real RealPath) string {
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
			if !in || rel == "" {
				continue
			}
			for _, s := range homeStartup {
				if strings.EqualFold(rel, s) || strings.HasPrefix(strings.ToLower(rel), strings.ToLower(s)+"/") {
					return "it is a startup file of your shell, session or git (~/" + rel + "), which runs programs as you outside the sandbox"
				}
			}
		}
	}
	return ""
}
