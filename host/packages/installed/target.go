package installed

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"demiurge.dev/host/core"
)

// EmbeddedCore is Locked.Core for the embedded default core.
const EmbeddedCore = "embedded:default"

// Target is the core packages are installed into.
type Target struct {
	// Key identifies the core in the lock file.
	Key string
	// ToolsDir holds the slot directories: the core's slots.tools, else
	// its agent/tools (where the seed places a provider: a package is not
	// an authored tool, so it needs no declared slot); for the embedded
	// default core, which cannot be written, a directory in the state
	// directory standing in for it.
	ToolsDir string
}

// DefaultToolsDir is where packages go in a core without slots.tools.
const DefaultToolsDir = "agent/tools"

// TargetFor is the active core as an install target.
func TargetFor(stateDir string, c *core.Core) Target {
	switch {
	case c.IsDefault():
		return Target{Key: EmbeddedCore, ToolsDir: filepath.Join(stateDir, "packages", "default-core", "tools")}
	case c.Version != nil: // the repository's copy is read-only: a stand-in per core id
		return Target{Key: "core:" + c.Version.ID, ToolsDir: filepath.Join(stateDir, "packages", "core-"+c.Version.ID, "tools")}
	case c.ToolsRoot == "":
		return Target{Key: c.Dir, ToolsDir: filepath.Join(c.Dir, filepath.FromSlash(DefaultToolsDir))}
	}
	return Target{Key: c.Dir, ToolsDir: c.ToolsRoot}
}

// PluginDir is where a package's binary lives: under the state directory,
// one directory per core and package, so that the core holds no binaries
// and each core sees only its own packages.
func (t Target) PluginDir(stateDir, name string) string {
	sum := sha256.Sum256([]byte(t.Key))
	return filepath.Join(stateDir, "packages", "installed", hex.EncodeToString(sum[:8]), name)
}

// SlotPath is the directory of a slot in the core.
func (t Target) SlotPath(slot string) string { return filepath.Join(t.ToolsDir, slot) }
