// Package plugins finds, verifies, starts and supervises toolset plugins.
// A plugin is a binary named demiurge-toolset-<name> with a recorded
// sha256 beside it; it is started lazily, verified at every launch, and
// killed with its process group when the host stops.
package plugins

import (
	"fmt"
	"os"
	"path/filepath"

	"demiurge.dev/host/plugins/disk"
)

// Finding plugins on disk lives in package disk, which links no gRPC (the
// tools-list launcher uses it); these names keep the manager's callers
// unchanged.
const BinaryPrefix = disk.BinaryPrefix

type (
	Origin    = disk.Origin
	Dir       = disk.Dir
	Candidate = disk.Candidate
)

const (
	OriginBuiltin   = disk.OriginBuiltin
	OriginInstalled = disk.OriginInstalled
)

// Discover lists the plugin binaries in dirs; see disk.Discover.
func Discover(dirs []Dir) ([]Candidate, error) { return disk.Discover(dirs) }

// WriteChecksum records the sha256 of a plugin binary beside it, as make and
// package install do.
func WriteChecksum(binary string) (string, error) {
	sum, err := fileSHA256(binary)
	if err != nil {
		return "", err
	}
	line := fmt.Sprintf("%s  %s\n", sum, filepath.Base(binary))
	return sum, os.WriteFile(binary+".sha256", []byte(line), 0o644)
}
