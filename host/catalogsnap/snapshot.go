package catalogsnap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/plugins/disk"
)

// Snapshot is what a full host resolved its catalog from.
type Snapshot struct {
	Key     Key      `json:"key"`
	Sources []Source `json:"sources"`
	// Warnings are the host's assembly warnings, printed again by a reader.
	Warnings []string `json:"warnings"`
	// Fingerprint is the resolved catalog's: a reader that resolves the
	// sources to anything else does not use the snapshot.
	Fingerprint string `json:"fingerprint"`
}

// Source is a catalog.Source without its binding (a live plugin adapter).
type Source struct {
	Kind  catalog.SourceKind `json:"kind"`
	Name  string             `json:"name"`
	Tools []catalog.ToolSpec `json:"tools"`
}

// CatalogSources are the sources to resolve, without bindings: a catalog
// made from them can be listed and shown, never dispatched.
func (s *Snapshot) CatalogSources() []catalog.Source {
	out := make([]catalog.Source, len(s.Sources))
	for i, src := range s.Sources {
		out[i] = catalog.Source{Kind: src.Kind, Name: src.Name, Tools: src.Tools}
	}
	return out
}

// maxSnapshotBytes bounds a read: schemas are at most 1 MiB each, and a
// catalog is a few dozen tools.
const maxSnapshotBytes = 64 << 20

// Dir is where snapshots live under the state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, "cache", "catalog") }

// path is the snapshot slot of one core file and host binary: a new
// snapshot for them replaces the old one, so the directory does not grow
// with every rebuild.
func path(stateDir string, k Key) string {
	sum := sha256.Sum256([]byte(k.Core.File + "\x00" + k.Host.Path))
	return filepath.Join(Dir(stateDir), hex.EncodeToString(sum[:16])+".json")
}

// Load returns the snapshot saved under key, if there is one with exactly
// that key. Anything unreadable, foreign or different is a miss.
func Load(stateDir string, key Key) (*Snapshot, bool) {
	f, err := os.OpenFile(path(stateDir, key), os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	// Written 0600 by this user; one others may write is not trusted.
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o022 != 0 || st.Size() > maxSnapshotBytes {
		return nil, false
	}
	// One read into a buffer of the file's size: every page the launcher
	// touches costs it start-up time.
	raw := make([]byte, st.Size())
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, false
	}
	// Only what the host sealed is a snapshot (mac.go).
	mkey, err := readMACKey(stateDir)
	if err != nil {
		return nil, false
	}
	body, ok := open(mkey, raw)
	if !ok {
		return nil, false
	}
	var s Snapshot
	if json.Unmarshal(body, &s) != nil || !s.Key.Equal(key) {
		return nil, false
	}
	return &s, true
}

// Save writes a snapshot atomically (a temporary file renamed over the
// old one), readable by this user only.
func Save(stateDir string, s *Snapshot) error {
	body, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("catalog snapshot: encode: %w", err)
	}
	mkey, err := macKey(stateDir)
	if err != nil {
		return err
	}
	raw := seal(mkey, body)
	// A host resolves a catalog every turn; an unchanged snapshot is not
	// rewritten.
	if old, err := os.ReadFile(path(stateDir, s.Key)); err == nil && bytes.Equal(old, raw) {
		return nil
	}
	dir := Dir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("catalog snapshot: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".snapshot-*")
	if err != nil {
		return fmt.Errorf("catalog snapshot: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return fmt.Errorf("catalog snapshot: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("catalog snapshot: write %s: %w", tmp.Name(), err)
	}
	return os.Rename(tmp.Name(), path(stateDir, s.Key))
}

// ErrUncacheable is Record's answer when no snapshot may be made.
var ErrUncacheable = errors.New("catalog snapshot: not cacheable")

// Record saves the snapshot of a catalog the running full host just
// resolved: its core, every discovered candidate, the sources it resolved
// from, and its warnings. It refuses (ErrUncacheable) when the core's
// tools depend on more than the key, when a source is not a plugin, or
// when a toolset was left out (the host retries it next time, so the next
// catalog may differ).
func Record(stateDir string, c *core.Core, cands []disk.Candidate, sources []catalog.Source, warnings []string, fingerprint string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("catalog snapshot: %w", err)
	}
	return record(stateDir, exe, c, cands, sources, warnings, fingerprint)
}

func record(stateDir, hostBinary string, c *core.Core, cands []disk.Candidate, sources []catalog.Source, warnings []string, fingerprint string) error {
	if why := Uncacheable(c); why != "" {
		return fmt.Errorf("%w: %s", ErrUncacheable, why)
	}
	if why := notFromCandidates(c, cands, sources); why != "" {
		return fmt.Errorf("%w: %s", ErrUncacheable, why)
	}
	key, err := NewKey(hostBinary, c, cands)
	if err != nil {
		return err
	}
	s := &Snapshot{Key: key, Warnings: append([]string{}, warnings...), Fingerprint: fingerprint}
	for _, src := range sources {
		s.Sources = append(s.Sources, Source{Kind: src.Kind, Name: src.Name, Tools: src.Tools})
	}
	return Save(stateDir, s)
}

// notFromCandidates says why the sources are not exactly the plugins the
// host uses (the declared toolsets, the installed plugins the core gets;
// one source each), or "" when they are.
func notFromCandidates(c *core.Core, cands []disk.Candidate, sources []catalog.Source) string {
	// Required: the declared toolsets, and on the embedded core every
	// installed plugin. Allowed besides: an installed plugin a core
	// directory uses without naming it (a provider package of that core).
	used, allowed := map[string]bool{}, map[string]bool{}
	for _, ts := range c.Toolsets {
		used[ts], allowed[ts] = true, true
	}
	for _, cand := range cands {
		if cand.Origin == disk.OriginInstalled {
			allowed[cand.Name] = true
			if c.IsDefault() {
				used[cand.Name] = true
			}
		}
	}
	have := map[string]bool{}
	for _, src := range sources {
		plugin := src.Kind == catalog.SourceBuiltin || src.Kind == catalog.SourceInstalled
		if !plugin || !allowed[src.Name] || have[src.Name] {
			return fmt.Sprintf("source %s %q is not one of the core's toolset plugins", src.Kind, src.Name)
		}
		have[src.Name] = true
	}
	for name := range used {
		if !have[name] {
			return fmt.Sprintf("toolset %s was left out of the catalog", name)
		}
	}
	return ""
}
