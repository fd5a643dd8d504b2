// Package installed reads what `demiurge package install` recorded: the
// lock file STATE/packages/lock.json, the markers in a core's tool slots,
// and from them the plugin directories of the active core's packages. It
// starts nothing and links no gRPC, so that a launcher may use it.
package installed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Version is the lock file's format version.
const Version = 1

// Lock is STATE/packages/lock.json: what is installed, for which core.
type Lock struct {
	Version  int      `json:"version"`
	Packages []Locked `json:"packages"`
}

// Secret declares a host environment variable bound to calls of Tools,
// under Target, one call at a time.
type Secret struct {
	Env    string   `json:"env"`
	Target string   `json:"target"`
	Tools  []string `json:"tools"`
}

// Locked is one installed package.
type Locked struct {
	Name          string `json:"name"`
	Version       string `json:"version"`
	Protocol      int    `json:"protocol"`
	ProtocolMinor int    `json:"protocol_minor"`
	// SHA256 is the archive's, as verified at install; BinarySHA256 the
	// plugin binary's, as placed.
	SHA256       string `json:"sha256"`
	BinarySHA256 string `json:"binary_sha256"`
	// Core is the core the package was installed into: its directory, or
	// EmbeddedCore.
	Core string `json:"core"`
	Slot string `json:"slot"`
	// SlotPath is the core's slot directory holding the package marker.
	SlotPath string `json:"slot_path"`
	// PluginDir holds the plugin binary and its recorded sha256.
	PluginDir string   `json:"plugin_dir"`
	Tools     []string `json:"tools"`
	Secrets   []Secret `json:"secrets,omitempty"`
	// Grants are what installing gave the package's tools (secret.bind of
	// each declared secret, for its declared tools only).
	Grants []string `json:"grants,omitempty"`
	// Egress are the hosts the package declared it reaches, all its
	// egress proxy lets through (none: no way out).
	Egress      []string  `json:"egress,omitempty"`
	Source      string    `json:"source"`
	InstalledAt time.Time `json:"installed_at"`
}

func Path(stateDir string) string { return filepath.Join(stateDir, "packages", "lock.json") }

// maxLock bounds lock.json.
const maxLock = 4 << 20

// Read reads the lock file; a missing one is an empty lock.
func Read(stateDir string) (*Lock, error) {
	path := Path(stateDir)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &Lock{Version: Version}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read package lock: %w", err)
	}
	if len(b) > maxLock {
		return nil, fmt.Errorf("%s is larger than %d MiB; it is not a package lock", path, maxLock>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %w; fix or delete it (then reinstall the packages)", path, err)
	}
	if l.Version != Version {
		return nil, fmt.Errorf("%s: version %d; this host reads version %d", path, l.Version, Version)
	}
	return &l, nil
}

// Write replaces the lock file atomically.
func (l *Lock) Write(stateDir string) error {
	path := Path(stateDir)
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".lock-*.json")
	if err != nil {
		return fmt.Errorf("write package lock: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write package lock %s: %w", path, err)
	}
	return nil
}

// Find returns the index of the package name installed in core, or -1.
func (l *Lock) Find(core, name string) int {
	for i, p := range l.Packages {
		if p.Core == core && p.Name == name {
			return i
		}
	}
	return -1
}

// InSlot returns the package installed in core's slot, or -1.
func (l *Lock) InSlot(core, slot string) int {
	for i, p := range l.Packages {
		if p.Core == core && p.Slot == slot {
			return i
		}
	}
	return -1
}

// Exclusive holds STATE/packages/.lock while install or remove runs, so
// that two of them cannot interleave their reads and writes of the lock.
func Exclusive(stateDir string) (release func(), err error) {
	dir := filepath.Join(stateDir, "packages")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("package state directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("package state lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("package state lock: %w", err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
