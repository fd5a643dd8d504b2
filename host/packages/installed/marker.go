package installed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"demiurge.dev/host/core"

	"demiurge.dev/host/plugins/disk"
)

// MarkerName is the file in a core's slot directory that names the package
// installed there.
const MarkerName = "package.json"

// maxMarker bounds a marker: a manifest and two checksums.
const maxMarker = 64 << 10

// Marker is the part of a slot's package.json that says which package, at
// which archive checksum, holds the slot.
type Marker struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

// ReadMarker reads the marker in a slot directory.
func ReadMarker(slot string) (*Marker, error) {
	path := filepath.Join(slot, MarkerName)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseMarker(path, b)
}

// ParseMarker parses the bytes of the marker at path (named in errors).
func ParseMarker(path string, b []byte) (*Marker, error) {
	if len(b) > maxMarker {
		return nil, fmt.Errorf("%s is larger than %d KiB; it is not a package marker", path, maxMarker>>10)
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// ReservedToolsets are the names no package may take: the built-in
// toolsets and the authored-tool runner. A package of such a name is
// shadowed by the built-in plugin, and anything bound to the name (its
// secrets, its grants) would attach to the built-in's calls.
func ReservedToolsets() []string {
	return append(core.KnownToolsets(), "authored")
}

// Check says what is wrong with an installed package on disk, "" if
// nothing: its slot must still name it at the same checksum, and its
// binary must be in place. The lock and the core must agree before a
// package runs.
func Check(p Locked) string {
	if slices.Contains(ReservedToolsets(), p.Name) {
		// Install refuses such a name: this entry was written by hand or
		// by an older host, and its bindings must attach to nothing.
		return fmt.Sprintf("it takes the name of the built-in toolset %s: remove it", p.Name)
	}
	m, err := ReadMarker(p.SlotPath)
	if err != nil {
		return fmt.Sprintf("its slot %s is gone or unreadable (%v): reinstall it", p.SlotPath, err)
	}
	if m.Name != p.Name || m.SHA256 != p.SHA256 {
		return fmt.Sprintf("its slot %s now names %s %s: remove and reinstall it", p.SlotPath, m.Name, m.Version)
	}
	if _, err := os.Stat(filepath.Join(p.PluginDir, disk.BinaryPrefix+p.Name)); err != nil {
		return fmt.Sprintf("its plugin binary is missing from %s: reinstall it", p.PluginDir)
	}
	return ""
}
