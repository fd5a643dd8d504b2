package packages

import (
	"archive/tar"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/core"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/shared"
)

// fixture is a state directory, a source with two providers of one slot
// (like web_search_brave and web_search_tavily), and a core.
type fixture struct {
	state, source string
	core          *core.Core
	m             *Manager
}

func newFixture(t *testing.T, c *core.Core) *fixture {
	t.Helper()
	f := &fixture{state: t.TempDir(), source: t.TempDir(), core: c}
	packageArchive(t, f.source, "search_one", "web_search")
	packageArchive(t, f.source, "search_two", "web_search")
	f.m = New(f.state, c, Source{Dir: f.source})
	return f
}

// assertNothingInstalled checks an install that failed left nothing: no
// lock entry, no slot, no plugin, no staging.
func (f *fixture) assertNothingInstalled(t *testing.T) {
	t.Helper()
	lock, err := installed.Read(f.state)
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Packages) != 0 {
		t.Fatalf("lock has %+v", lock.Packages)
	}
	if _, err := os.Stat(f.m.Target.SlotPath("web_search")); !os.IsNotExist(err) {
		t.Fatalf("slot exists: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(f.state, "packages", "*", "*"))
	for _, l := range left {
		if !strings.Contains(l, "default-core") {
			t.Fatalf("left behind: %s", l)
		}
	}
}

func TestInstallByName(t *testing.T) {
	for _, tc := range []struct {
		name     string
		core     func(t *testing.T) *core.Core
		toolsDir func(f *fixture) string
	}{
		{"embedded core: state overlay", func(*testing.T) *core.Core { return core.Default() },
			func(f *fixture) string { return filepath.Join(f.state, "packages", "default-core", "tools") }},
		{"core with slots.tools", func(t *testing.T) *core.Core { return coreDir(t, true) },
			func(f *fixture) string { return f.core.ToolsRoot }},
		{"core without slots: agent/tools", func(t *testing.T) *core.Core { return coreDir(t, false) },
			func(f *fixture) string { return filepath.Join(f.core.Dir, "agent", "tools") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.core(t))
			p, err := f.m.Install("search_one", "")
			if err != nil {
				t.Fatal(err)
			}
			slot := filepath.Join(tc.toolsDir(f), "web_search")
			if p.SlotPath != slot || p.Version != "1.2.3" || p.Protocol != 1 || len(p.SHA256) != 64 || p.Grants[0] != "secret.bind:TEST_API_KEY" {
				t.Fatalf("locked %+v", p)
			}
			m, err := installed.ReadMarker(slot)
			if err != nil || m.Name != "search_one" || m.SHA256 != p.SHA256 {
				t.Fatalf("marker %+v, %v", m, err)
			}
			bin := filepath.Join(p.PluginDir, "demiurge-toolset-search_one")
			if b, err := os.ReadFile(bin + ".sha256"); err != nil || !strings.HasPrefix(string(b), p.BinarySHA256+"  ") {
				t.Fatalf("recorded checksum %q, %v", b, err)
			}
			if strings.HasPrefix(p.PluginDir, tc.toolsDir(f)) {
				t.Fatalf("the binary was put into the core: %s", p.PluginDir)
			}
			lock, err := installed.Read(f.state)
			if err != nil || len(lock.Packages) != 1 || lock.Packages[0].Name != "search_one" {
				t.Fatalf("lock %+v, %v", lock, err)
			}
			active, err := installed.ForCore(f.state, f.core)
			if err != nil || len(active.PluginDirs()) != 1 || active.PluginDirs()[0].Path != p.PluginDir || len(active.Problems) != 0 {
				t.Fatalf("active %+v, %v", active, err)
			}
			rows, err := f.m.List()
			if err != nil || len(rows) != 2 || rows[0].State != "installed" || rows[1].State != "available" {
				t.Fatalf("list %+v, %v", rows, err)
			}
		})
	}
}

func TestSecondProviderOfASlotIsRefused(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	if _, err := f.m.Install("search_one", ""); err != nil {
		t.Fatal(err)
	}
	_, err := f.m.Install("search_two", "")
	var st *SlotTakenError
	if !errors.As(err, &st) || st.Holder != "search_one" || !strings.Contains(err.Error(), "web_search is already provided by search_one 1.2.3") || !strings.Contains(err.Error(), "demiurge package remove search_one") {
		t.Fatalf("got %v", err)
	}
	if _, err := f.m.Install("search_one", ""); err == nil || !strings.Contains(err.Error(), "already installed") {
		t.Fatalf("reinstall: %v", err)
	}
	// Removing the first frees the slot for the second.
	if _, err := f.m.Remove("search_one"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.Install("search_two", ""); err != nil {
		t.Fatal(err)
	}
}

func TestSlotsArePerCore(t *testing.T) {
	state, source := t.TempDir(), t.TempDir()
	packageArchive(t, source, "search_one", "web_search")
	packageArchive(t, source, "search_two", "web_search")
	a, b := coreDir(t, true), coreDir(t, false)
	if _, err := New(state, a, Source{Dir: source}).Install("search_one", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := New(state, b, Source{Dir: source}).Install("search_two", ""); err != nil {
		t.Fatal(err)
	}
	for c, want := range map[*core.Core]string{a: "search_one", b: "search_two"} {
		active, err := installed.ForCore(state, c)
		if err != nil || len(active.Packages) != 1 || active.Packages[0].Name != want {
			t.Fatalf("core %s: %+v %v", c.Dir, active, err)
		}
	}
	if active, _ := installed.ForCore(state, core.Default()); len(active.Packages) != 0 {
		t.Fatalf("the embedded core sees %+v", active.Packages)
	}
}

func TestInstallRefuses(t *testing.T) {
	bin := func(t *testing.T) []byte { return tinyBinary(t) }
	for _, tc := range []struct {
		name    string
		entries func(t *testing.T) []entry
		sha     func(good string) string
		want    string
	}{
		{"wrong checksum", nil, func(string) string { return strings.Repeat("0", 64) }, "it is not the package you meant; nothing was installed"},
		{"no checksum", nil, func(string) string { return "" }, "needs its sha256: give --sha256"},
		{"checksum that is not one", nil, func(string) string { return "abc" }, `--sha256 "abc" is not a sha256`},
		{"protocol 2", func(t *testing.T) []entry {
			// The "binary" would record that it ran; the protocol is
			// refused from the manifest, before the binary is even read.
			return []entry{{name: ManifestName, body: []byte(strings.Replace(manifestFor("proto_two", "web_search"), `"protocol":1`, `"protocol":2`, 1))},
				{name: "demiurge-toolset-proto_two", body: []byte("#!/bin/sh\ntouch ran\n")}}
		}, nil, "built for toolset protocol 2.0; this host speaks protocol 1"},
		{"newer protocol minor", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(strings.Replace(manifestFor("minor", "web_search"), `"protocol_minor":0`, fmt.Sprintf(`"protocol_minor":%d`, shared.ProtocolMinor+1), 1))}}
		}, nil, fmt.Sprintf("protocol 1.%d", shared.ProtocolMinor+1)},
		{"not a Go program", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(manifestFor("script", "web_search"))}, {name: "demiurge-toolset-script", body: []byte("#!/bin/sh\necho hi\n")}}
		}, nil, "is not a Go toolset plugin"},
		{"other module", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(strings.Replace(manifestFor("other", "web_search"), tinyModule, "example.test/other", 1))}, {name: "demiurge-toolset-other", body: bin(t)}}
		}, nil, "was built from module example.test/tiny"},
		{"manifest not first", func(t *testing.T) []entry {
			return []entry{{name: "demiurge-toolset-late", body: bin(t)}, {name: ManifestName, body: []byte(manifestFor("late", "web_search"))}}
		}, nil, "package.json must be its first entry"},
		{"extra file", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(manifestFor("extra", "web_search"))}, {name: "demiurge-toolset-extra", body: bin(t)}, {name: "README", body: []byte("hi")}}
		}, nil, `holds "README"`},
		{"path in archive", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(manifestFor("trav", "web_search"))}, {name: "../demiurge-toolset-trav", body: bin(t)}}
		}, nil, `holds "../demiurge-toolset-trav"`},
		{"symlink", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(manifestFor("link", "web_search"))}, {name: "demiurge-toolset-link", typ: tar.TypeSymlink, linkname: "/bin/sh"}}
		}, nil, "only package.json and the plugin binary are allowed"},
		{"no binary", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(manifestFor("nobin", "web_search"))}}
		}, nil, "has no plugin binary demiurge-toolset-nobin"},
		{"bad manifest", func(t *testing.T) []entry {
			return []entry{{name: ManifestName, body: []byte(`{"name":"x","unknown":1}`)}}
		}, nil, `unknown field "unknown"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, coreDir(t, true))
			path := filepath.Join(t.TempDir(), "pkg.tar.gz")
			var sum string
			if tc.entries == nil {
				path, sum = packageArchive(t, t.TempDir(), "search_one", "web_search")
			} else {
				sum = writeArchive(t, path, tc.entries(t)...)
			}
			if tc.sha != nil {
				sum = tc.sha(sum)
			}
			_, err := f.m.Install(path, sum)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			f.assertNothingInstalled(t)
			if _, err := os.Stat("ran"); err == nil {
				t.Fatal("a refused package ran")
			}
		})
	}
}

func TestInstallFromSourceRefuses(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	_, err := f.m.Install("web_search_nope", "")
	var ue *UnknownPackageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `no package "web_search_nope"; available: search_one, search_two`) {
		t.Fatalf("unknown: %v", err)
	}
	// A tampered archive no longer matches the sha256 make recorded.
	archive := filepath.Join(f.source, "search_one"+ArchiveSuffix)
	fh, _ := os.OpenFile(archive, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write([]byte("tampered"))
	fh.Close()
	var ce *ChecksumError
	if _, err := f.m.Install("search_one", ""); !errors.As(err, &ce) {
		t.Fatalf("tampered: %v", err)
	}
	// A --sha256 given with a name must match the recorded one too.
	if _, err := f.m.Install("search_two", strings.Repeat("a", 64)); !errors.As(err, &ce) {
		t.Fatalf("named with wrong sha: %v", err)
	}
	f.assertNothingInstalled(t)
}

func TestAuthoredToolInTheSlotIsNotOverwritten(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	slot := f.m.Target.SlotPath("web_search")
	if err := os.MkdirAll(slot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(slot, "tool.yaml"), []byte("description: mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.Install("search_one", ""); err == nil || !strings.Contains(err.Error(), "is not a package slot") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(slot, "tool.yaml")); string(b) != "description: mine\n" {
		t.Fatal("the authored tool was touched")
	}
}

func TestRemove(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	if _, err := f.m.Remove("search_one"); err == nil || !strings.Contains(err.Error(), "package search_one is not installed in this core; no packages are") {
		t.Fatalf("remove before install: %v", err)
	}
	p, err := f.m.Install("search_one", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.Remove("search_two"); err == nil || !strings.Contains(err.Error(), "installed: search_one") {
		t.Fatalf("remove of another: %v", err)
	}
	if _, err := f.m.Remove("search_one"); err != nil {
		t.Fatal(err)
	}
	f.assertNothingInstalled(t)
	if _, err := os.Stat(p.PluginDir); !os.IsNotExist(err) {
		t.Fatalf("plugin dir left: %v", err)
	}
}

func TestActiveLeavesOutADisagreeingPackage(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	p, err := f.m.Install("search_one", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		break_ func()
		want   string
	}{
		{"marker names another package", func() {
			os.WriteFile(filepath.Join(p.SlotPath, ManifestName), []byte(`{"name":"evil","version":"6.6.6","sha256":"x"}`), 0o644)
		}, "now names evil 6.6.6"},
		{"marker gone", func() { os.RemoveAll(p.SlotPath) }, "is gone or unreadable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.break_()
			active, err := installed.ForCore(f.state, f.core)
			if err != nil || len(active.Packages) != 0 || len(active.Problems) != 1 || !strings.Contains(active.Problems[0], tc.want) {
				t.Fatalf("active %+v, %v", active, err)
			}
			rows, _ := f.m.List()
			if rows[0].State != "broken" || !strings.Contains(rows[0].Problem, tc.want) {
				t.Fatalf("list %+v", rows)
			}
		})
	}
}

func TestCorruptLockFailsClosed(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	os.MkdirAll(filepath.Join(f.state, "packages"), 0o700)
	os.WriteFile(installed.Path(f.state), []byte(`{"version":1,"packages":[{"name":1}]}`), 0o600)
	if _, err := installed.ForCore(f.state, f.core); err == nil || !strings.Contains(err.Error(), "lock.json") {
		t.Fatalf("ForCore: %v", err)
	}
	if _, err := f.m.Install("search_one", ""); err == nil {
		t.Fatal("installed over a corrupt lock")
	}
}

func TestForeignMarkerNamesTheWayOut(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	if _, err := f.m.Install("search_one", ""); err != nil {
		t.Fatal(err)
	}
	os.Remove(installed.Path(f.state)) // the lock is lost; the core keeps its marker
	_, err := f.m.Install("search_two", "")
	if err == nil || !strings.Contains(err.Error(), "taken by search_one 1.2.3, which this state directory did not install") || !strings.Contains(err.Error(), "delete "+f.m.Target.SlotPath("web_search")) {
		t.Fatalf("got %v", err)
	}
}
