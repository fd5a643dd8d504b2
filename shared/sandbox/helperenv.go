package sandbox

import (
	"fmt"
	"strings"
)

// helperGOMAXPROCS is given to the helper's own start when the command's
// environment sets no GOMAXPROCS: the helper is a Go program that starts
// twice per command, and without it the runtime reads the cgroup files
// to choose GOMAXPROCS and keeps a processor (and threads) per core. One
// is all the helper needs. Enforce removes it before the command runs.
const helperGOMAXPROCS = "GOMAXPROCS=1"

// forHelper returns the command's environment (env, what exec.Cmd would
// give it) with what only the helper should see added, and the entries
// added (for Policy.HelperEnv).
func forHelper(env []string) ([]string, []string) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return env, nil // the command's own value; the helper uses it too
		}
	}
	out := make([]string, 0, len(env)+1)
	return append(append(out, env...), helperGOMAXPROCS), []string{helperGOMAXPROCS}
}

// withoutHelperEnv removes from env each entry of added once (the last
// occurrence: forHelper appends), giving the command the environment its
// launcher gave it.
func withoutHelperEnv(env, added []string) []string {
	if len(added) == 0 {
		return env
	}
	out := append([]string(nil), env...)
	for _, a := range added {
		for i := len(out) - 1; i >= 0; i-- {
			if out[i] == a {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
	}
	return out
}

// validHelperEnv: only what forHelper adds may be listed.
func validHelperEnv(added []string) error {
	for _, a := range added {
		if a != helperGOMAXPROCS {
			return fmt.Errorf("sandbox policy: helper_env entry %q is not one the launcher adds", a)
		}
	}
	return nil
}
