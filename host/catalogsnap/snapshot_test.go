package catalogsnap

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/plugins/disk"
)

// fixture is a state directory, a host binary, a core directory and two
// plugin directories, all real files.
type fixture struct {
	t                        testing.TB
	state, host, coreDir     string
	builtinDir, installedDir string
}

const coreYAML = "toolsets: [coding]\ncapabilities: [fs.read]\ntools:\n  metadata:\n    read_file: {risk: medium}\n"

func newFixture(t testing.TB) *fixture {
	root := t.TempDir()
	f := &fixture{t: t, state: filepath.Join(root, "state"), host: filepath.Join(root, "bin", "demiurge-host"),
		coreDir: filepath.Join(root, "core"), builtinDir: filepath.Join(root, "bin")}
	f.installedDir = filepath.Join(f.state, "plugins")
	f.write(f.host, "host binary")
	f.write(filepath.Join(f.coreDir, core.FileName), coreYAML)
	f.plugin(f.builtinDir, "coding", "coding plugin")
	return f
}

func (f *fixture) write(path, content string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		f.t.Fatal(err)
	}
}

// plugin writes a plugin binary and a recorded checksum (any 64 hex digits
// do: nothing here verifies them).
func (f *fixture) plugin(dir, name, content string) {
	bin := filepath.Join(dir, disk.BinaryPrefix+name)
	f.write(bin, content)
	f.write(bin+".sha256", strings.Repeat(string("0123456789abcdef"[len(content)%16]), 64)+"  "+filepath.Base(bin)+"\n")
}

// inputs loads the core and discovers the plugins as the host does.
func (f *fixture) inputs() (*core.Core, []disk.Candidate) {
	f.t.Helper()
	c, err := core.Load(f.coreDir)
	if err != nil {
		f.t.Fatal(err)
	}
	cands, err := disk.Discover([]disk.Dir{{Path: f.builtinDir, Origin: disk.OriginBuiltin}, {Path: f.installedDir, Origin: disk.OriginInstalled}})
	if err != nil {
		f.t.Fatal(err)
	}
	return c, cands
}

func (f *fixture) key() Key {
	f.t.Helper()
	c, cands := f.inputs()
	k, err := NewKey(f.host, c, cands)
	if err != nil {
		f.t.Fatal(err)
	}
	return k
}

func sourcesFor(c *core.Core, cands []disk.Candidate) []catalog.Source {
	var out []catalog.Source
	for _, cand := range cands {
		if cand.Origin == disk.OriginInstalled || slicesContains(c.Toolsets, cand.Name) {
			out = append(out, catalog.Source{Kind: catalog.SourceBuiltin, Name: cand.Name, Binding: "live adapter", Tools: []catalog.ToolSpec{{
				Name: cand.Name + "_tool", Description: "A tool.", Effect: catalog.EffectRead,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
				Metadata:    catalog.Metadata{Risk: catalog.RiskLow, Capability: "fs.read"},
				Subjects:    []catalog.Subject{{Kind: catalog.SubjectPath, Arg: "path", Access: catalog.AccessRead}},
				Provenance:  catalog.Provenance{Kind: catalog.SourceBuiltin, Toolset: cand.Name, Plugin: disk.BinaryPrefix + cand.Name, Version: "1.0.0", Path: cand.Path},
			}}})
		}
	}
	return out
}

func slicesContains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

// record resolves and records as the full host's hook does.
func (f *fixture) record() *catalog.Catalog {
	f.t.Helper()
	c, cands := f.inputs()
	src := sourcesFor(c, cands)
	cat, err := catalog.Resolve(src, c.Metadata)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := record(f.state, f.host, c, cands, src, []string{"coding/x: a warning"}, cat.Fingerprint()); err != nil {
		f.t.Fatal(err)
	}
	return cat
}

func TestRecordThenLoad(t *testing.T) {
	f := newFixture(t)
	cat := f.record()
	s, ok := Load(f.state, f.key())
	if !ok {
		t.Fatal("Load after Record missed")
	}
	if !reflect.DeepEqual(s.Warnings, []string{"coding/x: a warning"}) || s.Fingerprint != cat.Fingerprint() {
		t.Errorf("snapshot warnings %q fingerprint %s", s.Warnings, s.Fingerprint)
	}
	c, _ := f.inputs()
	again, err := catalog.Resolve(s.CatalogSources(), c.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint() != cat.Fingerprint() || again.Display(catalog.DisplayFull) != cat.Display(catalog.DisplayFull) {
		t.Errorf("the snapshot resolves to another catalog:\n%s\nwant\n%s", again.Display(catalog.DisplayFull), cat.Display(catalog.DisplayFull))
	}
	for _, src := range s.CatalogSources() {
		if src.Binding != nil {
			t.Errorf("source %s kept a binding: %v", src.Name, src.Binding)
		}
	}
	// Private to this user, written atomically (no temporary file left).
	entries, err := os.ReadDir(Dir(f.state))
	if err != nil || len(entries) != 1 {
		t.Fatalf("snapshot directory holds %v (%v), want one file", entries, err)
	}
	st, _ := os.Stat(filepath.Join(Dir(f.state), entries[0].Name()))
	dst, _ := os.Stat(Dir(f.state))
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Errorf("modes: file %v, directory %v; want 0600 and 0700", st.Mode().Perm(), dst.Mode().Perm())
	}
}

// TestEveryKeyInputIsAMiss changes each input the key names, one at a
// time, and requires a miss: a snapshot is never stale.
func TestEveryKeyInputIsAMiss(t *testing.T) {
	later := time.Now().Add(time.Hour)
	tests := []struct {
		name   string
		change func(f *fixture)
	}{
		{"host binary rebuilt", func(f *fixture) { f.write(f.host, "host binary, rebuilt") }},
		{"host binary touched", func(f *fixture) { os.Chtimes(f.host, later, later) }},
		{"agent.yaml changed", func(f *fixture) {
			f.write(filepath.Join(f.coreDir, core.FileName), coreYAML+"name: renamed\n")
		}},
		{"override changed", func(f *fixture) {
			f.write(filepath.Join(f.coreDir, core.FileName), strings.Replace(coreYAML, "risk: medium", "risk: high", 1))
		}},
		{"plugin binary rebuilt", func(f *fixture) {
			f.write(filepath.Join(f.builtinDir, disk.BinaryPrefix+"coding"), "coding plugin v2")
		}},
		{"plugin binary touched", func(f *fixture) {
			os.Chtimes(filepath.Join(f.builtinDir, disk.BinaryPrefix+"coding"), later, later)
		}},
		{"recorded checksum changed", func(f *fixture) {
			f.write(filepath.Join(f.builtinDir, disk.BinaryPrefix+"coding.sha256"), strings.Repeat("e", 64)+"\n")
		}},
		{"recorded checksum removed", func(f *fixture) {
			os.Remove(filepath.Join(f.builtinDir, disk.BinaryPrefix+"coding.sha256"))
		}},
		{"plugin installed", func(f *fixture) { f.plugin(f.installedDir, "textstats", "third party") }},
		{"unused built-in plugin added", func(f *fixture) { f.plugin(f.builtinDir, "schedule", "not declared") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.record()
			if _, ok := Load(f.state, f.key()); !ok {
				t.Fatal("no hit before the change")
			}
			tt.change(f)
			if _, ok := Load(f.state, f.key()); ok {
				t.Fatal("still a hit after the change: the snapshot would be stale")
			}
		})
	}
}

// TestKeyFieldsAreCompared covers the fields no file change above reaches
// on its own: the format version and overrides that differ with the same
// agent.yaml.
func TestKeyFieldsAreCompared(t *testing.T) {
	f := newFixture(t)
	f.record()
	base := f.key()
	changes := map[string]func(k *Key){
		"format":    func(k *Key) { k.Format++ },
		"overrides": func(k *Key) { k.Core.Overrides = "x" },
		"toolsets":  func(k *Key) { k.Core.Toolsets = append(k.Core.Toolsets, "schedule") },
		"core dir":  func(k *Key) { k.Core.Dir += "x" },
		"origin":    func(k *Key) { k.Plugins[0].Origin = disk.OriginInstalled },
		"problem":   func(k *Key) { k.Plugins[0].Problem = "refused" },
	}
	for name, change := range changes {
		k := base
		k.Core.Toolsets = append([]string(nil), base.Core.Toolsets...)
		k.Plugins = append([]PluginID(nil), base.Plugins...)
		change(&k)
		if k.Equal(base) {
			t.Errorf("%s: changed key still Equal", name)
		}
	}
	c, cands := f.inputs()
	c.Metadata["read_file"] = catalog.Override{Risk: ptr(catalog.RiskHigh)}
	k, err := NewKey(f.host, c, cands)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Load(f.state, k); ok {
		t.Fatal("a different effective override still hits")
	}
}

func ptr[T any](v T) *T { return &v }

func TestRecordRefuses(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(f *fixture, c *core.Core, cands []disk.Candidate, src []catalog.Source) []catalog.Source
		reason string
	}{
		{"MCP servers", func(f *fixture, c *core.Core, _ []disk.Candidate, src []catalog.Source) []catalog.Source {
			c.MCPRoot = filepath.Join(f.coreDir, "mcp")
			return src
		}, "slots.mcp"},
		{"authored tools", func(f *fixture, c *core.Core, _ []disk.Candidate, src []catalog.Source) []catalog.Source {
			c.ToolsRoot = filepath.Join(f.coreDir, "tools")
			return src
		}, "slots.tools"},
		{"an MCP source", func(_ *fixture, _ *core.Core, _ []disk.Candidate, src []catalog.Source) []catalog.Source {
			return append(src, catalog.Source{Kind: catalog.SourceMCP, Name: "docs"})
		}, `source mcp "docs"`},
		{"a toolset left out", func(_ *fixture, _ *core.Core, _ []disk.Candidate, _ []catalog.Source) []catalog.Source {
			return nil
		}, "coding was left out"},
		{"a source twice", func(_ *fixture, _ *core.Core, _ []disk.Candidate, src []catalog.Source) []catalog.Source {
			return append(src, src[0])
		}, `source builtin "coding"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			c, cands := f.inputs()
			src := tt.setup(f, c, cands, sourcesFor(c, cands))
			err := record(f.state, f.host, c, cands, src, nil, "fp")
			if !errors.Is(err, ErrUncacheable) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("record = %v, want ErrUncacheable naming %q", err, tt.reason)
			}
			if _, err := os.Stat(Dir(f.state)); !os.IsNotExist(err) {
				t.Fatalf("a refused snapshot left %s behind (%v)", Dir(f.state), err)
			}
		})
	}
}

func TestLoadRefusesDamagedOrForeignFiles(t *testing.T) {
	tests := []struct {
		name   string
		damage func(path string)
	}{
		{"truncated", func(p string) { os.Truncate(p, 10) }},
		{"not JSON", func(p string) { os.WriteFile(p, []byte("garbage"), 0o600) }},
		{"writable by others", func(p string) { os.Chmod(p, 0o622) }},
		{"removed", func(p string) { os.Remove(p) }},
		{"unsealed body", func(p string) {
			b, _ := os.ReadFile(p)
			_, body, _ := strings.Cut(string(b), "\n")
			os.WriteFile(p, []byte(body), 0o600)
		}},
		{"one byte of the body changed", func(p string) {
			b, _ := os.ReadFile(p)
			b[len(b)-2] ^= 1
			os.WriteFile(p, b, 0o600)
		}},
		{"key readable by others", func(p string) { os.Chmod(KeyFile(stateOf(p)), 0o644) }},
		{"key replaced by a symlink to the same bytes", func(p string) {
			k := KeyFile(stateOf(p))
			os.Rename(k, k+".real")
			os.Symlink(k+".real", k)
		}},
		{"key replaced", func(p string) { os.WriteFile(KeyFile(stateOf(p)), make([]byte, keySize), 0o600) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.record()
			k := f.key()
			tt.damage(path(f.state, k))
			if _, ok := Load(f.state, k); ok {
				t.Fatal("a damaged snapshot was used")
			}
		})
	}
}

// stateOf is the state directory of a snapshot path.
func stateOf(snapshot string) string { return filepath.Dir(filepath.Dir(filepath.Dir(snapshot))) }
