package packages

import (
	"fmt"
	"slices"
	"strings"
)

// GrantPrefix is how a secret grant is spelled in the lock, the audit and
// on the command line (`--grant secret.bind:ENV`; the bare ENV is read
// the same).
const GrantPrefix = "secret.bind:"

// checkGrants says whether the operator granted what the package's
// manifest asks for. An archive given by path is anyone's: its sha256
// says which archive it is, not what it may read, so every host variable
// its package would bind must be named by the operator, and a grant of a
// secret the package does not declare is refused too (what is granted is
// exactly what is bound). A package of the sources by name was built
// beside the host by make and `package list` shows its secrets before
// install: without grants it binds what it declares; with grants they
// must match it too.
func checkGrants(man *Manifest, granted []string, required bool) error {
	var asked []string
	for _, s := range man.Secrets {
		if !slices.Contains(asked, s.Env) {
			asked = append(asked, s.Env)
		}
	}
	got := map[string]bool{}
	for _, g := range granted {
		env := strings.TrimPrefix(strings.TrimSpace(g), GrantPrefix)
		if !slices.Contains(asked, env) {
			declared := "none"
			if len(asked) > 0 {
				declared = strings.Join(asked, ", ")
			}
			return fmt.Errorf("--grant %s: package %s declares no secret %s (it declares: %s); grant exactly what it binds; nothing was installed", g, man.Name, env, declared)
		}
		got[env] = true
	}
	if !required && len(granted) == 0 {
		return nil
	}
	var missing, flags []string
	for _, env := range asked {
		if !got[env] {
			missing = append(missing, env)
			flags = append(flags, "--grant "+GrantPrefix+env)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("package %s asks to bind %s from the host environment to its calls, which you have not granted; its sha256 names the archive, not what it may read: if you grant it, install again with %s; nothing was installed",
			man.Name, strings.Join(missing, ", "), strings.Join(flags, " "))
	}
	return nil
}
