package terminal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoShell is returned when neither bash nor sh can be found.
var ErrNoShell = errors.New("no shell found: neither bash nor sh is on the command's PATH or in /bin")

// ResolveShell finds the shell a command runs under: bash if the command's
// own PATH (from env, the environment the host built) has it, else sh,
// else /bin/bash or /bin/sh. Relative PATH entries are skipped: they would
// make the shell depend on the command's cwd.
func ResolveShell(env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, name := range []string{"bash", "sh"} {
		for _, dir := range filepath.SplitList(path) {
			if !filepath.IsAbs(dir) {
				continue
			}
			if p := filepath.Join(dir, name); isExecutable(p) {
				return p, nil
			}
		}
	}
	for _, p := range []string{"/bin/bash", "/bin/sh"} {
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", ErrNoShell
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
