package packages

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

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

// place puts the binary (whose sum the lock records, and every launch
// checks) under the state directory and the marker into the core's slot,
// through the tools root (toolsroot.go). On failure nothing is left
// behind.
func (m *Manager) place(u *unpacked, e installed.Locked) (err error) {
	defer func() {
		if err != nil {
			m.unplace(e)
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
	tools, err := openTools(m.StateDir, m.Target, true)
	if err != nil {
		return err
	}
	defer tools.Close()
	if err := tools.Mkdir(e.Slot, 0o755); err != nil {
		return fmt.Errorf("slot %s: %w", e.SlotPath, err)
	}
	b, err := json.MarshalIndent(marker{Manifest: *u.manifest, SHA256: e.SHA256, BinarySHA256: e.BinarySHA256}, "", "  ")
	if err != nil {
		return err
	}
	f, err := tools.OpenFile(filepath.Join(e.Slot, ManifestName), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return fmt.Errorf("package marker in %s: %w", e.SlotPath, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// unplace removes what place put down, and only that: the marker (and its
// slot directory when nothing else is in it) if it still names this
// package at the archive sum the lock recorded, and the binary with its
// checksum file in the plugin directory install computes for the package
// (a lock entry naming another directory removes nothing there).
func (m *Manager) unplace(e installed.Locked) error {
	var errs []error
	if tools, err := openTools(m.StateDir, m.Target, false); err == nil {
		if mk, err := readMarkerAt(tools, e.Slot, e.SlotPath); err == nil && mk.Name == e.Name && mk.SHA256 == e.SHA256 {
			if err := tools.Remove(filepath.Join(e.Slot, ManifestName)); err != nil {
				errs = append(errs, err)
			}
			_ = tools.Remove(e.Slot) // only if empty
		}
		tools.Close()
	} else if !errors.Is(err, errNoTools) {
		errs = append(errs, err)
	}
	dir := m.Target.PluginDir(m.StateDir, e.Name)
	if e.PluginDir != dir {
		errs = append(errs, fmt.Errorf("the lock records the plugin directory %s, not %s where install puts it; it was left alone", e.PluginDir, dir))
	} else {
		bin := filepath.Join(dir, plugins.BinaryPrefix+e.Name)
		for _, f := range []string{bin, bin + ".sha256"} {
			if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("%s holds more than the package installed there; it was left: %w", dir, err))
		}
		_ = os.Remove(filepath.Dir(dir)) // the core's directory, once empty
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove package %s: %w", e.Name, err)
	}
	return nil
}
