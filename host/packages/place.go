package packages

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins"
)

// marker is what a core's slot directory holds for an installed package:
// the manifest with the checksums it was installed with (installed.Marker
// reads it).
type marker struct {
	Manifest
	SHA256       string `json:"sha256"`
	BinarySHA256 string `json:"binary_sha256"`
}

// place puts the binary (with its recorded sha256, which the plugin
// manager checks at every start) under the state directory and the marker
// into the core's slot. On failure nothing is left behind.
func place(u *unpacked, e installed.Locked) (err error) {
	defer func() {
		if err != nil {
			unplace(e)
		}
	}()
	if err := os.RemoveAll(e.PluginDir); err != nil {
		return fmt.Errorf("clear %s: %w", e.PluginDir, err)
	}
	if err := os.MkdirAll(e.PluginDir, 0o700); err != nil {
		return fmt.Errorf("plugin directory: %w", err)
	}
	bin := filepath.Join(e.PluginDir, plugins.BinaryPrefix+e.Name)
	if err := os.Rename(u.binary, bin); err != nil {
		return fmt.Errorf("place plugin binary: %w", err)
	}
	sum, err := plugins.WriteChecksum(bin)
	if err != nil {
		return fmt.Errorf("record plugin checksum: %w", err)
	}
	if sum != e.BinarySHA256 {
		return fmt.Errorf("plugin binary changed while it was placed (sha256 %s, unpacked %s); nothing was installed", sum, e.BinarySHA256)
	}
	if err := os.MkdirAll(filepath.Dir(e.SlotPath), 0o755); err != nil {
		return fmt.Errorf("tools directory: %w", err)
	}
	if err := os.Mkdir(e.SlotPath, 0o755); err != nil {
		return fmt.Errorf("slot %s: %w", e.SlotPath, err)
	}
	b, err := json.MarshalIndent(marker{Manifest: *u.manifest, SHA256: e.SHA256, BinarySHA256: e.BinarySHA256}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(e.SlotPath, ManifestName), append(b, '\n'), 0o644)
}

// unplace removes what place put down: the marker (and its directory when
// nothing else is in it) only if it still names this package, and the
// plugin directory.
func unplace(e installed.Locked) error {
	var errs []error
	if m, err := installed.ReadMarker(e.SlotPath); err == nil && m.Name == e.Name {
		if err := os.Remove(filepath.Join(e.SlotPath, ManifestName)); err != nil {
			errs = append(errs, err)
		}
		_ = os.Remove(e.SlotPath) // only if empty
	}
	if err := os.RemoveAll(e.PluginDir); err != nil {
		errs = append(errs, err)
	}
	_ = os.Remove(filepath.Dir(e.PluginDir)) // the core's directory, once empty
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove package %s: %w", e.Name, err)
	}
	return nil
}
