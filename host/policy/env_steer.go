package policy

import "strings"

// A variable the model sets in an overlay (or as a binding's target) must
// not point a program at a configuration, a program, a search path or
// extra options: ripgrep reads RIPGREP_CONFIG_PATH, less runs LESSOPEN,
// git runs GIT_PAGER, gcc loads a -fplugin from CFLAGS, python imports a
// module named in PYTHONWARNINGS, kubectl runs the exec plugin of
// KUBECONFIG. The families below are refused by name, by prefix and by
// the words a name is made of; what is left is plain data (DEBUG,
// NODE_ENV, RUST_LOG, LANG). It fails closed: a harmless key that looks
// like a steering one is refused too, and the command can still set it
// in its own text, which the shell guard reviews.

// steeringNames are single variables, beyond execControlNames.
var steeringNames = map[string]bool{
	"SHELL": true, "TERMINFO": true, "TERMINFO_DIRS": true, "TERMCAP": true, "TZDIR": true,
	"VIMINIT": true, "EXINIT": true, "MYVIMRC": true, "MYGVIMRC": true, "GVIMINIT": true, "VIMRUNTIME": true,
	"EMACSLOADPATH": true, "EMACSDATA": true, "GREP_OPTIONS": true, "WGETRC": true, "NETRC": true,
	"KUBECONFIG": true, "HISTFILE": true, "MAILCAPS": true, "MAILRC": true, "TERMINAL": true,
	"FCEDIT": true, "SCREENRC": true, "TMUX_TMPDIR": true, "HOSTFILE": true,
	"REQUESTS_CA_BUNDLE": true, "NODE_EXTRA_CA_CERTS": true, "GNUPGHOME": true, "RIPGREP_CONFIG_PATH": true,
	"DOCKER_HOST": true, "DOCKER_CONTEXT": true, "CURL_CA_BUNDLE": true, "SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// steeringPrefixes are whole families: their members configure how a
// program or runtime starts.
var steeringPrefixes = []string{
	"XDG_", "MAN", "VIM", "EMACS", "SUDO_", "KUBE", "OPENSSL_", "WGET",
	"PERL", "RUBY", "JAVA", "JDK_", "NODE_OPTIONS", "RIPGREP_", "RG_",
	"JQ_", "FZF_", "BAT_", "DELTA_", "SYSTEMD_", "DBUS_", "GTK_", "QT_", "GIO_", "GDK_", "GNUPG", "TERMINFO",
	"PKG_CONFIG", "MAKE", "CMAKE_", "MESON_", "NINJA_",
}

// compilerPrefixes name a compiler or linker and its flags (CC, CXX,
// LDFLAGS: gcc loads a -fplugin, the linker a -wrap): they count only as a
// whole word or with FLAGS, so ARCH or ASSET_ID stay data.
var compilerPrefixes = []string{"CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "RANLIB", "STRIP", "NM", "OBJCOPY"}

// safePython are the PYTHON* variables known to steer nothing; the rest
// of the family (PYTHONPATH, PYTHONSTARTUP, PYTHONWARNINGS, which can
// import a module, PYTHONHOME, PYTHONEXECUTABLE, ...) is refused.
var safePython = map[string]bool{
	"PYTHONUNBUFFERED": true, "PYTHONDONTWRITEBYTECODE": true, "PYTHONIOENCODING": true,
	"PYTHONHASHSEED": true, "PYTHONUTF8": true, "PYTHONNOUSERSITE": true, "PYTHONSAFEPATH": true,
}

// steeringWords are words of a name (split at '_') that point somewhere:
// a configuration file or directory, a search path, a program to run or
// extra options. A word also counts when it ends the name's word (MANPATH,
// GNUPGHOME, KUBECONFIG, PHPRC, CFLAGS).
var steeringWords = []string{
	"CONFIG", "CONF", "CFG", "RC", "INI", "OPTS", "OPTIONS", "OPT", "FLAGS", "ARGS",
	"PATH", "PATHS", "HOME", "DIR", "DIRS", "ROOT", "FILE", "FILES", "PROFILE", "INCLUDE",
	"PAGER", "EDITOR", "SHELL", "BROWSER", "ASKPASS", "PROGRAM", "PROG", "CMD", "COMMAND",
	"HOOK", "HOOKS", "INIT", "STARTUP", "PRELOAD", "LIBRARY", "LIBS", "PLUGIN", "PLUGINS",
	"MODULE", "MODULES", "ENGINE", "ENGINES", "WRAPPER", "EXEC", "EXECUTABLE", "INTERPRETER",
	"LOADER", "TEMPLATE", "PROXY",
}

// steeringEndings are the words that also count at the end of a longer
// word; the short ones (RC, OPT, DIR, ...) only count whole, to keep
// names like SRC or ORDIR out.
var steeringEndings = []string{
	"CONFIG", "CONF", "RC", "OPTS", "OPTIONS", "FLAGS", "PATH", "HOME", "PAGER", "EDITOR",
	"SHELL", "ASKPASS", "PROFILE", "INIT", "PRELOAD", "HOOK", "HOOKS",
}

// SteeringEnvKey reports whether an overlay key or binding target would
// point a program at a configuration, a program, a search path or extra
// options, or control how programs are loaded (ExecControlEnvKey), or is
// PATH or HOME. Case-insensitive.
func SteeringEnvKey(key string) bool {
	k := strings.ToUpper(key)
	if k == "PATH" || k == "HOME" || ExecControlEnvKey(k) || steeringNames[k] {
		return true
	}
	if strings.HasPrefix(k, "PYTHON") {
		return !safePython[k]
	}
	for _, p := range steeringPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	for _, p := range compilerPrefixes {
		if rest, ok := strings.CutPrefix(k, p); ok && (rest == "" || rest[0] == '_' || strings.HasPrefix(rest, "FLAGS")) {
			return true
		}
	}
	for _, w := range strings.Split(k, "_") {
		for _, s := range steeringWords {
			if w == s {
				return true
			}
		}
		for _, s := range steeringEndings {
			if len(w) > len(s) && strings.HasSuffix(w, s) {
				return true
			}
		}
	}
	return false
}
