package packages

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"demiurge.dev/host/core"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/runtime"
)

// Manager installs, removes and lists the packages of one core.
type Manager struct {
	StateDir string
	Target   installed.Target
	// Sources are searched in order for a package given by name.
	Sources []Source
	// BuiltinDir is the directory of the built-in toolset plugins: a
	// package may not take the name of one found there.
	BuiltinDir string
	// Events is the audit log install and remove write to; nil is the
	// state directory's store. An install or remove that cannot be
	// recorded does not happen.
	Events func() (*runtime.Store, error)
	now    func() time.Time
}

// New is the package manager of core c, with the state under stateDir.
func New(stateDir string, c *core.Core, sources ...Source) *Manager {
	return &Manager{StateDir: stateDir, Target: installed.TargetFor(stateDir, c), Sources: sources, now: time.Now}
}

// IsArchivePath reports whether an install argument names an archive
// file rather than a package: a path, not a bare name.
func IsArchivePath(ref string) bool {
	return strings.ContainsRune(ref, os.PathSeparator) || strings.HasSuffix(ref, ArchiveSuffix)
}

// SlotTakenError says the core's slot already holds another provider.
type SlotTakenError struct {
	Slot, Holder, Version string
}

func (e *SlotTakenError) Error() string {
	return fmt.Sprintf("%s is already provided by %s %s; a core holds one provider per slot: remove it first with `demiurge package remove %s`", e.Slot, e.Holder, e.Version, e.Holder)
}

// Install is InstallGranting with no grants: a package from the sources
// by name, or an archive that declares no secret.
func (m *Manager) Install(ref, sha string) (installed.Locked, error) {
	return m.InstallGranting(ref, sha, nil)
}

// InstallGranting installs a package given by name (from the sources) or
// as the path of an archive, whose sha256 must then be given. The
// archive's sha256, its manifest and its protocol version are checked
// before any of it is placed, and nothing of it is run. granted are the
// secrets the operator grants (ENV or secret.bind:ENV): an archive's
// package binds only what the operator named (checkGrants).
func (m *Manager) InstallGranting(ref, sha string, granted []string) (installed.Locked, error) {
	if sha != "" && !isSHA256(strings.ToLower(sha)) {
		return installed.Locked{}, fmt.Errorf("--sha256 %q is not a sha256 (64 hex digits)", sha)
	}
	archive, want := ref, sha
	if !IsArchivePath(ref) {
		a, err := find(m.Sources, ref)
		if err != nil {
			return installed.Locked{}, err
		}
		if sha != "" && !strings.EqualFold(sha, a.SHA256) {
			return installed.Locked{}, &ChecksumError{Path: a.Archive, Want: strings.ToLower(sha), Got: a.SHA256}
		}
		archive, want = a.Archive, a.SHA256
	} else if sha == "" {
		return installed.Locked{}, fmt.Errorf("installing the archive %s needs its sha256: give --sha256 <hex>, as published with it", ref)
	}
	if abs, err := filepath.Abs(archive); err == nil {
		archive = abs
	}
	release, err := installed.Exclusive(m.StateDir)
	if err != nil {
		return installed.Locked{}, err
	}
	defer release()
	if !IsArchivePath(ref) {
		// The source's manifest names the slot: a taken slot is refused
		// before the archive is even hashed (and again after unpacking).
		if err := m.checkFreeByName(ref); err != nil {
			return installed.Locked{}, err
		}
	}
	staging, err := os.MkdirTemp(filepath.Join(m.StateDir, "packages"), "staging-")
	if err != nil {
		return installed.Locked{}, fmt.Errorf("package staging directory: %w", err)
	}
	defer os.RemoveAll(staging)
	staged, sum, err := stageArchive(archive, staging, want)
	if err != nil {
		return installed.Locked{}, err
	}
	u, err := unpack(staged, staging)
	if err != nil {
		return installed.Locked{}, fmt.Errorf("package %s refused: %w", archive, err)
	}
	if !IsArchivePath(ref) && u.manifest.Name != ref {
		return installed.Locked{}, fmt.Errorf("%s holds package %q, not %q; refused", archive, u.manifest.Name, ref)
	}
	lock, err := installed.Read(m.StateDir)
	if err != nil {
		return installed.Locked{}, err
	}
	if err := m.checkName(u.manifest); err != nil {
		_ = m.audit(EventKindPackageInstall, auditData(u.manifest.Name, u.manifest.Version, sum, archive, err))
		return installed.Locked{}, err
	}
	if err := checkGrants(u.manifest, granted, IsArchivePath(ref)); err != nil {
		_ = m.audit(EventKindPackageInstall, auditData(u.manifest.Name, u.manifest.Version, sum, archive, err))
		return installed.Locked{}, err
	}
	if err := m.checkFree(lock, u.manifest, sum); err != nil {
		return installed.Locked{}, err
	}
	entry := installed.Locked{
		Name: u.manifest.Name, Version: u.manifest.Version, Protocol: u.manifest.Protocol, ProtocolMinor: u.manifest.ProtocolMinor,
		SHA256: sum, BinarySHA256: u.binarySHA256, Core: m.Target.Key, Slot: u.manifest.Slot,
		SlotPath: m.Target.SlotPath(u.manifest.Slot), PluginDir: m.Target.PluginDir(m.StateDir, u.manifest.Name),
		Tools: u.manifest.Tools, Secrets: u.manifest.Secrets, Grants: u.manifest.Grants(), Egress: u.manifest.Egress,
		Source: archive, InstalledAt: m.now().UTC().Truncate(time.Second),
	}
	if err := m.place(u, entry); err != nil {
		return installed.Locked{}, err
	}
	// No audit, no install: the event is durable before the lock names
	// the package.
	if err := m.audit(EventKindPackageInstall, installedData(entry)); err != nil {
		m.unplace(entry)
		return installed.Locked{}, fmt.Errorf("package %s was not installed: the audit event could not be written: %w", entry.Name, err)
	}
	lock.Packages = append(lock.Packages, entry)
	if err := lock.Write(m.StateDir); err != nil {
		m.unplace(entry)
		return installed.Locked{}, err
	}
	return entry, nil
}

// checkFreeByName runs checkFree with the manifest a source lists for name.
func (m *Manager) checkFreeByName(name string) error {
	a, err := find(m.Sources, name)
	if err != nil {
		return err
	}
	lock, err := installed.Read(m.StateDir)
	if err != nil {
		return err
	}
	return m.checkFree(lock, a.manifest, a.SHA256)
}

// checkFree refuses a second package of the same name or slot in the core,
// and a slot directory that holds something else (an authored tool).
func (m *Manager) checkFree(lock *installed.Lock, man *Manifest, sum string) error {
	if i := lock.Find(m.Target.Key, man.Name); i >= 0 {
		p := lock.Packages[i]
		if p.SHA256 == sum {
			return fmt.Errorf("package %s %s is already installed in this core", p.Name, p.Version)
		}
		return fmt.Errorf("package %s %s is already installed in this core; remove it first with `demiurge package remove %s`", p.Name, p.Version, p.Name)
	}
	if i := lock.InSlot(m.Target.Key, man.Slot); i >= 0 {
		p := lock.Packages[i]
		return &SlotTakenError{Slot: man.Slot, Holder: p.Name, Version: p.Version}
	}
	slot := m.Target.SlotPath(man.Slot)
	tools, err := openTools(m.StateDir, m.Target, false)
	if errors.Is(err, errNoTools) {
		return nil
	}
	if err != nil {
		return err
	}
	defer tools.Close()
	if marker, err := readMarkerAt(tools, man.Slot, slot); err == nil {
		// A marker the lock does not know (another state directory
		// installed it, or the lock was lost): remove cannot free it.
		return fmt.Errorf("%s is taken by %s %s, which this state directory did not install (%s has no entry for it): delete %s to free the slot, or use the state directory that installed it",
			man.Slot, marker.Name, marker.Version, installed.Path(m.StateDir), slot)
	}
	if _, err := tools.Lstat(man.Slot); err == nil {
		return fmt.Errorf("%s already exists and is not a package slot (an authored tool?); a package needs that directory: rename or remove it first", slot)
	}
	return nil
}

// Remove uninstalls a package from the core: its marker, its binary and
// its lock entry.
func (m *Manager) Remove(name string) (installed.Locked, error) {
	release, err := installed.Exclusive(m.StateDir)
	if err != nil {
		return installed.Locked{}, err
	}
	defer release()
	lock, err := installed.Read(m.StateDir)
	if err != nil {
		return installed.Locked{}, err
	}
	i := lock.Find(m.Target.Key, name)
	if i < 0 {
		var here []string
		for _, p := range lock.Packages {
			if p.Core == m.Target.Key {
				here = append(here, p.Name)
			}
		}
		if len(here) == 0 {
			return installed.Locked{}, fmt.Errorf("package %s is not installed in this core; no packages are", name)
		}
		return installed.Locked{}, fmt.Errorf("package %s is not installed in this core; installed: %s", name, strings.Join(here, ", "))
	}
	p := lock.Packages[i]
	if !namePattern().MatchString(p.Slot) {
		return installed.Locked{}, fmt.Errorf("%s: package %s records the slot %q, which is not one directory name; fix or delete the lock file", installed.Path(m.StateDir), p.Name, p.Slot)
	}
	if err := m.audit(EventKindPackageRemove, installedData(p)); err != nil {
		return installed.Locked{}, fmt.Errorf("package %s was not removed: the audit event could not be written: %w", p.Name, err)
	}
	if err := m.unplace(p); err != nil {
		return installed.Locked{}, err
	}
	lock.Packages = slices.Delete(lock.Packages, i, i+1)
	return p, lock.Write(m.StateDir)
}

// Listing is one row of `package list`.
type Listing struct {
	Name string `json:"name"`
	// Installed is the installed version, "" when not installed.
	Installed string `json:"installed,omitempty"`
	// Available is the version the sources offer, "" when none.
	Available string   `json:"available,omitempty"`
	Slot      string   `json:"slot,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Secrets   []string `json:"secrets,omitempty"`
	SHA256    string   `json:"sha256,omitempty"`
	// State is installed, available, or broken.
	State   string `json:"state"`
	Problem string `json:"problem,omitempty"`
}

// List merges what the sources offer with what this core has installed.
func (m *Manager) List() ([]Listing, error) {
	rows := map[string]*Listing{}
	var order []string
	row := func(name string) *Listing {
		if r, ok := rows[name]; ok {
			return r
		}
		rows[name] = &Listing{Name: name}
		order = append(order, name)
		return rows[name]
	}
	for _, s := range m.Sources {
		list, err := s.List()
		if err != nil {
			return nil, err
		}
		for _, a := range list {
			r := row(a.Name)
			if r.Available != "" || r.Problem != "" {
				continue // the first source wins, as in install
			}
			r.Available, r.Slot, r.Tools, r.SHA256, r.State, r.Problem = a.Version, a.Slot, a.Tools, a.SHA256, "available", a.Problem
			if a.Problem != "" {
				r.State = "broken"
			}
			if a.manifest != nil {
				r.Secrets = secretNames(a.manifest.Secrets)
			}
		}
	}
	lock, err := installed.Read(m.StateDir)
	if err != nil {
		return nil, err
	}
	for _, p := range lock.Packages {
		if p.Core != m.Target.Key {
			continue
		}
		r := row(p.Name)
		r.Installed, r.Slot, r.Tools, r.SHA256, r.Secrets = p.Version, p.Slot, p.Tools, p.SHA256, secretNames(p.Secrets)
		r.State, r.Problem = "installed", ""
		if problem := installed.Check(p); problem != "" {
			r.State, r.Problem = "broken", problem
		}
	}
	slices.Sort(order)
	out := make([]Listing, 0, len(order))
	for _, n := range order {
		out = append(out, *rows[n])
	}
	return out, nil
}

func secretNames(ss []Secret) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Env)
	}
	return out
}
