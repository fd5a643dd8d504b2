package sandboxing

import (
	"os"
	"path/filepath"
)

// HostOwnedPaths are the paths a sandboxed command must never write,
// wherever they lie (with `make run` in a checkout, the workspace holds
// bin/ and often the state): the directory of the built-in plugins and
// the helper, the host's own binary's directory, the state directory
// (store, installed plugins and packages, logs), and the host's
// configuration directory. The helper holds those inside the workspace
// read-only; elsewhere nothing is writable to a command anyway.
func HostOwnedPaths(pluginDir, stateDir string) []string {
	var out []string
	add := func(p string) { out = appendResolved(out, p) }
	add(pluginDir)
	if exe, err := os.Executable(); err == nil {
		add(filepath.Dir(exe))
	}
	add(stateDir)
	if cfg, err := os.UserConfigDir(); err == nil {
		add(filepath.Join(cfg, "demiurge"))
	}
	return out
}

// HostPrivatePaths is the state directory (store, keys, logs, the socket
// tokens): a sandboxed command whose workspace holds it may read none of
// it but the paths given to it there (its runtime home), since the token
// beside the host socket and the store are the host's alone.
func HostPrivatePaths(stateDir string) []string { return appendResolved(nil, stateDir) }

// appendResolved appends p, absolute, resolved through symlinks.
func appendResolved(out []string, p string) []string {
	if p == "" || !filepath.IsAbs(p) {
		return out
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return append(out, filepath.Clean(p))
}
