package installed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/core"
)

func TestLockRoundTrip(t *testing.T) {
	state := t.TempDir()
	l, err := Read(state)
	if err != nil || len(l.Packages) != 0 || l.Version != Version {
		t.Fatalf("missing lock: %+v %v", l, err)
	}
	if err := os.MkdirAll(filepath.Join(state, "packages"), 0o700); err != nil {
		t.Fatal(err)
	}
	l.Packages = append(l.Packages, Locked{Name: "a", Version: "1.0.0", Core: EmbeddedCore, Slot: "web_search", InstalledAt: time.Unix(1700000000, 0).UTC()})
	if err := l.Write(state); err != nil {
		t.Fatal(err)
	}
	back, err := Read(state)
	if err != nil || len(back.Packages) != 1 || back.Find(EmbeddedCore, "a") != 0 || back.InSlot(EmbeddedCore, "web_search") != 0 || back.Find("/other/core", "a") != -1 {
		t.Fatalf("read back %+v %v", back, err)
	}
	if left, _ := filepath.Glob(filepath.Join(state, "packages", ".lock-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestLockRefusesWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"other version", `{"version":2,"packages":[]}`, "version 2; this host reads version 1"},
		{"unknown field", `{"version":1,"packages":[],"extra":true}`, `unknown field "extra"`},
		{"not JSON", `lock`, "fix or delete it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			os.MkdirAll(filepath.Join(state, "packages"), 0o700)
			os.WriteFile(Path(state), []byte(tc.body), 0o600)
			if _, err := Read(state); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "lock.json") {
				t.Fatalf("got %v, want %q naming the file", err, tc.want)
			}
		})
	}
}

func TestTargetFor(t *testing.T) {
	state := t.TempDir()
	withSlots := &core.Core{Dir: "/cores/a", ToolsRoot: "/cores/a/custom/tools"}
	without := &core.Core{Dir: "/cores/b"}
	for _, tc := range []struct {
		name     string
		c        *core.Core
		key, dir string
	}{
		{"embedded", core.Default(), EmbeddedCore, filepath.Join(state, "packages", "default-core", "tools")},
		{"slots.tools", withSlots, "/cores/a", "/cores/a/custom/tools"},
		{"no slots", without, "/cores/b", "/cores/b/agent/tools"},
	} {
		got := TargetFor(state, tc.c)
		if got.Key != tc.key || got.ToolsDir != tc.dir || got.SlotPath("web_search") != filepath.Join(tc.dir, "web_search") {
			t.Errorf("%s: %+v", tc.name, got)
		}
	}
	a, b := TargetFor(state, withSlots).PluginDir(state, "p"), TargetFor(state, without).PluginDir(state, "p")
	if a == b || !strings.HasPrefix(a, filepath.Join(state, "packages", "installed")) {
		t.Errorf("plugin dirs %s and %s", a, b)
	}
}
