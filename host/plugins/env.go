package plugins

import (
	"os"
	"strings"
)

// pluginEnvKeys are the only host variables a plugin process inherits:
// enough to run and to format text, never a credential. Secrets reach a
// plugin only as values bound to one call.
var pluginEnvKeys = []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR", "DEMIURGE_PLUGIN_LOG_LEVEL"}

// PluginEnv builds a plugin's environment from the allowlist; home points
// the plugin's HOME at a host-owned runtime directory. The result is never
// nil, because a nil exec.Cmd.Env inherits everything.
func PluginEnv(home string) []string {
	env := make([]string, 0, len(pluginEnvKeys)+1)
	for _, k := range pluginEnvKeys {
		if v, ok := os.LookupEnv(k); ok && !strings.ContainsRune(v, 0) {
			env = append(env, k+"="+v)
		}
	}
	if home != "" {
		env = append(env, "HOME="+home)
	}
	return env
}
