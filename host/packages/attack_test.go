package packages

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/runtime"
)

// TestNamesAPackageMayNotTake: the attack of issue 11 was a package whose
// package.json names itself `coding`; the built-in plugin shadowed its
// binary and its secret binding attached to every built-in call. Every
// built-in toolset's name, and the name of a plugin already there, is
// refused, and the refusal is audited.
func TestNamesAPackageMayNotTake(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, f *fixture)
		want    string
	}{
		{"coding", nil, "coding is the name of a built-in toolset"},
		{"demiurge_control", nil, "is the name of a built-in toolset"},
		{"schedule", nil, "is the name of a built-in toolset"},
		{"authored", nil, "is the name of a built-in toolset"},
		{"textstats", func(t *testing.T, f *fixture) {
			f.m.BuiltinDir = t.TempDir()
			os.WriteFile(filepath.Join(f.m.BuiltinDir, "demiurge-toolset-textstats"), []byte("x"), 0o755)
		}, "the toolset textstats is already there (builtin"},
		{"dropped", func(t *testing.T, f *fixture) {
			dir := filepath.Join(f.state, "plugins")
			os.MkdirAll(dir, 0o700)
			os.WriteFile(filepath.Join(dir, "demiurge-toolset-dropped"), []byte("x"), 0o755)
		}, "the toolset dropped is already there (installed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, coreDir(t, true))
			if tc.prepare != nil {
				tc.prepare(t, f)
			}
			path, sum := packageArchive(t, t.TempDir(), tc.name, "web_search")
			_, err := f.m.Install(path, sum)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			f.assertNothingInstalled(t)
			ev := lastEvent(t, f.state, EventKindPackageInstall)
			if ev["outcome"] != "refused" || ev["package"] != tc.name || !strings.Contains(ev["error"].(string), tc.want) {
				t.Fatalf("audit %v", ev)
			}
		})
	}
}

// TestLockEntryOfABuiltinNameIsLeftOut: a lock entry naming a built-in
// toolset (written by hand or by an older host) is not active, so nothing
// binds to the built-in's calls through it.
func TestLockEntryOfABuiltinNameIsLeftOut(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	p, err := f.m.Install("search_one", "")
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := installed.Read(f.state)
	lock.Packages[0].Name = "coding"
	os.WriteFile(filepath.Join(p.SlotPath, ManifestName), []byte(`{"name":"coding","version":"1.2.3","sha256":"`+p.SHA256+`"}`), 0o644)
	if err := lock.Write(f.state); err != nil {
		t.Fatal(err)
	}
	active, err := installed.ForCore(f.state, f.core)
	if err != nil || len(active.Packages) != 0 || len(active.Problems) != 1 || !strings.Contains(active.Problems[0], "built-in toolset coding") {
		t.Fatalf("active %+v %v", active, err)
	}
}

// TestInstallAndRemoveAreAudited: both write an event with what was placed
// or taken away.
func TestInstallAndRemoveAreAudited(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	p, err := f.m.Install("search_one", "")
	if err != nil {
		t.Fatal(err)
	}
	ev := lastEvent(t, f.state, EventKindPackageInstall)
	if ev["outcome"] != "ok" || ev["package"] != "search_one" || ev["sha256"] != p.SHA256 || ev["binary_sha256"] != p.BinarySHA256 || ev["slot_path"] != p.SlotPath {
		t.Fatalf("install event %v", ev)
	}
	if _, err := f.m.Remove("search_one"); err != nil {
		t.Fatal(err)
	}
	ev = lastEvent(t, f.state, EventKindPackageRemove)
	if ev["package"] != "search_one" || ev["sha256"] != p.SHA256 {
		t.Fatalf("remove event %v", ev)
	}
}

// TestNoAuditNoInstall: an event log that cannot be written stops install.
func TestNoAuditNoInstall(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	f.m.Events = func() (*runtime.Store, error) { return nil, os.ErrPermission }
	if _, err := f.m.Install("search_one", ""); err == nil || !strings.Contains(err.Error(), "audit event could not be written") {
		t.Fatalf("got %v", err)
	}
	f.assertNothingInstalled(t)
}

// TestSymlinkedToolsDirectory: an agent that can write the core replaces
// agent/tools (or the slot) with a symlink out of it. Install refuses to
// write through it; remove deletes nothing through it.
func TestSymlinkedToolsDirectory(t *testing.T) {
	t.Run("install through a symlinked agent/tools", func(t *testing.T) {
		f := newFixture(t, coreDir(t, false))
		outside := t.TempDir()
		os.MkdirAll(filepath.Join(f.core.Dir, "agent"), 0o755)
		if err := os.Symlink(outside, filepath.Join(f.core.Dir, "agent", "tools")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.m.Install("search_one", ""); err == nil || !strings.Contains(err.Error(), "is a symlink, not a directory") {
			t.Fatalf("got %v", err)
		}
		if left, _ := os.ReadDir(outside); len(left) != 0 {
			t.Fatalf("written outside the core: %v", left)
		}
	})
	t.Run("install through a symlinked agent", func(t *testing.T) {
		f := newFixture(t, coreDir(t, false))
		outside := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(f.core.Dir, "agent")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.m.Install("search_one", ""); err == nil || !strings.Contains(err.Error(), "is a symlink") {
			t.Fatalf("got %v", err)
		}
		if left, _ := os.ReadDir(outside); len(left) != 0 {
			t.Fatalf("written outside the core: %v", left)
		}
	})
	t.Run("remove through a symlinked agent/tools", func(t *testing.T) {
		f := newFixture(t, coreDir(t, false))
		p, err := f.m.Install("search_one", "")
		if err != nil {
			t.Fatal(err)
		}
		// The agent moves the real tools away and points agent/tools at a
		// directory of its choosing that looks like the slot.
		victim := t.TempDir()
		os.Mkdir(filepath.Join(victim, "web_search"), 0o755)
		marker, _ := os.ReadFile(filepath.Join(p.SlotPath, ManifestName))
		os.WriteFile(filepath.Join(victim, "web_search", ManifestName), marker, 0o644)
		tools := filepath.Dir(p.SlotPath)
		os.Rename(tools, tools+".moved")
		if err := os.Symlink(victim, tools); err != nil {
			t.Fatal(err)
		}
		if _, err := f.m.Remove("search_one"); err == nil || !strings.Contains(err.Error(), "is a symlink") {
			t.Fatalf("got %v", err)
		}
		if _, err := os.Stat(filepath.Join(victim, "web_search", ManifestName)); err != nil {
			t.Fatalf("removed through the symlink: %v", err)
		}
	})
	t.Run("a symlinked slot is not read as free", func(t *testing.T) {
		f := newFixture(t, coreDir(t, true))
		outside := t.TempDir()
		if err := os.Symlink(outside, f.m.Target.SlotPath("web_search")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.m.Install("search_one", ""); err == nil || !strings.Contains(err.Error(), "is not a package slot") {
			t.Fatalf("got %v", err)
		}
		if left, _ := os.ReadDir(outside); len(left) != 0 {
			t.Fatalf("written outside the core: %v", left)
		}
	})
}

// TestRemoveDeletesOnlyWhatInstallPlaced: a lock entry edited to name
// another plugin directory or a marker of another archive removes nothing
// there.
func TestRemoveDeletesOnlyWhatInstallPlaced(t *testing.T) {
	f := newFixture(t, coreDir(t, true))
	p, err := f.m.Install("search_one", "")
	if err != nil {
		t.Fatal(err)
	}
	precious := t.TempDir()
	os.WriteFile(filepath.Join(precious, "keep"), []byte("mine"), 0o600)
	lock, _ := installed.Read(f.state)
	lock.Packages[0].PluginDir = precious
	lock.Write(f.state)
	if _, err := f.m.Remove("search_one"); err == nil || !strings.Contains(err.Error(), "it was left alone") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(precious, "keep")); err != nil {
		t.Fatalf("remove deleted a directory install never made: %v", err)
	}
	_ = p
}

// lastEvent is the data of the newest event of kind in the state's store.
func lastEvent(t *testing.T, state, kind string) map[string]any {
	t.Helper()
	s, err := runtime.Open(filepath.Join(state, "demiurge.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := s.Events(runtime.EventQuery{Kind: kind})
	if err != nil || len(evs) == 0 {
		t.Fatalf("no %s event: %v", kind, err)
	}
	var d map[string]any
	if err := json.Unmarshal(evs[len(evs)-1].Data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestAnArchiveBindsOnlyTheSecretsTheOperatorGranted: an archive given by
// path carried a package.json naming any host variable (OPENAI_API_KEY,
// the model's own key, shown with the real binary and web_search_brave's
// archive repacked), and install bound it to the package's calls: the
// sha256 the operator gave names the archive, not what it may read. Every
// secret of an archive must now be granted by name, and only those; a
// package of the sources by name binds what `package list` showed.
func TestAnArchiveBindsOnlyTheSecretsTheOperatorGranted(t *testing.T) {
	const want = "--grant secret.bind:TEST_API_KEY"
	for _, tc := range []struct {
		name    string
		granted []string
		refused string
	}{
		{"no grant", nil, "asks to bind TEST_API_KEY from the host environment to its calls, which you have not granted"},
		{"another variable", []string{"OPENAI_API_KEY"}, "declares no secret OPENAI_API_KEY (it declares: TEST_API_KEY)"},
		{"one more than declared", []string{"TEST_API_KEY", "secret.bind:OPENAI_API_KEY"}, "declares no secret OPENAI_API_KEY"},
		{"granted", []string{"secret.bind:TEST_API_KEY"}, ""},
		{"granted bare", []string{" TEST_API_KEY"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, coreDir(t, true))
			path, sum := packageArchive(t, t.TempDir(), "search_three", "web_search")
			p, err := f.m.InstallGranting(path, sum, tc.granted)
			if tc.refused == "" {
				if err != nil || !slices.Equal(p.Grants, []string{"secret.bind:TEST_API_KEY"}) {
					t.Fatalf("install: %v, grants %v", err, p.Grants)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "nothing was installed") {
				t.Fatalf("got %v, want %q", err, tc.refused)
			}
			if tc.granted == nil && !strings.Contains(err.Error(), want) {
				t.Fatalf("the refusal does not say how to grant: %v", err)
			}
			f.assertNothingInstalled(t)
			if ev := lastEvent(t, f.state, EventKindPackageInstall); ev["outcome"] != "refused" || ev["package"] != "search_three" {
				t.Fatalf("audit %v", ev)
			}
		})
	}
	t.Run("by name", func(t *testing.T) {
		f := newFixture(t, coreDir(t, true))
		if _, err := f.m.InstallGranting("search_one", "", []string{"OPENAI_API_KEY"}); err == nil || !strings.Contains(err.Error(), "declares no secret OPENAI_API_KEY") {
			t.Fatalf("a wrong grant by name: %v", err)
		}
		f.assertNothingInstalled(t)
		if p, err := f.m.Install("search_one", ""); err != nil || !slices.Equal(p.Grants, []string{"secret.bind:TEST_API_KEY"}) {
			t.Fatalf("a source's package by name: %v %v", err, p.Grants)
		}
	})
	t.Run("no secrets", func(t *testing.T) {
		f := newFixture(t, coreDir(t, true))
		path := filepath.Join(t.TempDir(), "plain.tar.gz")
		man := strings.Replace(manifestFor("plain", "web_search"), `,"secrets":[{"env":"TEST_API_KEY","target":"TEST_API_KEY","tools":["web_search"]}]`, "", 1)
		sum := writeArchive(t, path, entry{name: ManifestName, body: []byte(man)}, entry{name: "demiurge-toolset-plain", body: tinyBinary(t)})
		if p, err := f.m.Install(path, sum); err != nil || len(p.Grants) != 0 {
			t.Fatalf("an archive that binds nothing: %v %v", err, p.Grants)
		}
	})
}
