package packages

import (
	"fmt"
	"path/filepath"
	"slices"

	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins/disk"
)

// checkName refuses a package named like a built-in toolset, a plugin in
// the built-in or installed-plugin directory, or a package installed in
// another core of this state directory under another slot (one name, one
// toolset, wherever it is installed).
func (m *Manager) checkName(man *Manifest) error {
	if slices.Contains(installed.ReservedToolsets(), man.Name) {
		return fmt.Errorf("package %s is refused: %s is the name of a built-in toolset, and a package may not take it", man.Name, man.Name)
	}
	dirs := []disk.Dir{{Path: filepath.Join(m.StateDir, "plugins"), Origin: disk.OriginInstalled}}
	if m.BuiltinDir != "" {
		dirs = append([]disk.Dir{{Path: m.BuiltinDir, Origin: disk.OriginBuiltin}}, dirs...)
	}
	cands, err := disk.Discover(dirs)
	if err != nil {
		return fmt.Errorf("package %s: list the toolsets it might collide with: %w", man.Name, err)
	}
	for _, c := range cands {
		if c.Name == man.Name {
			return fmt.Errorf("package %s is refused: the toolset %s is already there (%s, %s); a package may not take the name of another toolset", man.Name, c.Name, c.Origin, c.Path)
		}
	}
	return nil
}
