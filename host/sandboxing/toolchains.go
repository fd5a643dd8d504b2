package sandboxing

import (
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/shared/pathrules"
)

// EnvRead is the operator's list of extra paths every sandboxed command
// may read and execute (a toolchain the host does not recognise), in
// PATH syntax.
const EnvRead = "DEMIURGE_SANDBOX_READ"

// toolchainDirs: for a PATH entry inside a toolchain's home directory
// (the key, a path component), what of that home a command needs to run
// the toolchain: its installed versions, never a file of credentials
// (~/.cargo/credentials.toml stays unreadable). Relative to the key's
// directory; ".." names a sibling.
var toolchainDirs = map[string][]string{
	".pyenv":  {"."},
	".rustup": {"."},
	".cargo":  {"bin", "registry", "git", "config.toml", "../.rustup"},
	".nvm":    {"."},
	".volta":  {"."},
	".bun":    {"bin", "install"},
	".deno":   {"bin"},
	".asdf":   {"."},
	"go":      {"bin", "pkg/mod"},
}

// ToolchainPaths are the directories the PATH's toolchains need, read and
// execute only: each absolute PATH entry and where it resolves to, and
// for an entry inside a known toolchain home (pyenv, rustup and cargo,
// nvm, volta, bun, deno, asdf, a GOPATH) the parts of that home it runs
// from; then the operator's DEMIURGE_SANDBOX_READ. The rest of the home
// directory stays unreadable.
func ToolchainPaths(pathEnv, extra string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if seen[p] || !filepath.IsAbs(p) {
			return
		}
		if _, err := os.Stat(p); err != nil {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue
		}
		dirs := []string{d}
		if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
			dirs = append(dirs, r)
		}
		for _, d := range dirs {
			root, parts := toolchainHome(d)
			if root == "" {
				if !pathrules.IsSensitive(d) {
					add(d)
				}
				continue
			}
			for _, p := range parts {
				add(filepath.Join(root, p))
			}
		}
	}
	for _, d := range filepath.SplitList(extra) {
		add(d)
	}
	return out
}

// toolchainHome finds the innermost known toolchain home in d's path.
func toolchainHome(d string) (string, []string) {
	comps := strings.Split(filepath.Clean(d), string(filepath.Separator))
	for i := len(comps) - 1; i > 0; i-- {
		if parts, ok := toolchainDirs[comps[i]]; ok {
			if comps[i] == "go" && (i+1 >= len(comps) || comps[i+1] != "bin") {
				continue // only a GOPATH's bin marks a GOPATH
			}
			return string(filepath.Separator) + filepath.Join(comps[1:i+1]...), parts
		}
	}
	return "", nil
}

// ToolchainEnv completes a sandboxed command's environment for the
// toolchains it may run: rustup's proxies (cargo, rustc) find their
// toolchains through RUSTUP_HOME, else through $HOME/.rustup, and a
// command's HOME is the host's runtime home. The operator's own
// RUSTUP_HOME, when the environment has one, stays.
func (c Config) ToolchainEnv(env []string) []string {
	if lookupEnv(env, "RUSTUP_HOME") != "" {
		return env
	}
	for _, p := range c.Toolchains {
		if filepath.Base(p) == ".rustup" {
			return append(env, "RUSTUP_HOME="+p)
		}
	}
	return env
}
