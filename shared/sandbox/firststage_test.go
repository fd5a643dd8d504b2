package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFirstStageOnlyWhenAsTrustedAsTheHelper: Wrap starts the small
// first-stage binary only when it is a regular, executable file of the
// helper's owner that nobody else may write, beside the helper; in every
// other case the helper runs its first stage itself.
func TestFirstStageOnlyWhenAsTrustedAsTheHelper(t *testing.T) {
	dir := t.TempDir()
	helper := filepath.Join(dir, "demiurge-sandbox")
	first := filepath.Join(dir, FirstStageName)
	for _, p := range []string{helper, first} {
		if err := os.WriteFile(p, []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := firstStageBeside(helper); got != first {
		t.Fatalf("a trusted first stage beside the helper: %q", got)
	}
	if got := firstStageBeside("demiurge-sandbox"); got != "" {
		t.Errorf("a relative helper path: %q", got)
	}
	refused := func(name string, prepare, undo func() error) {
		t.Helper()
		if err := prepare(); err != nil {
			t.Fatal(err)
		}
		if got := firstStageBeside(helper); got != "" {
			t.Errorf("%s: used %q", name, got)
		}
		if err := undo(); err != nil {
			t.Fatal(err)
		}
	}
	mode := func(m os.FileMode) func() error { return func() error { return os.Chmod(first, m) } }
	refused("group-writable", mode(0o775), mode(0o755))
	refused("writable by others", mode(0o757), mode(0o755))
	refused("not executable", mode(0o644), mode(0o755))
	if os.Getuid() == 0 {
		refused("another owner", func() error { return os.Lchown(first, 65534, 65534) }, func() error { return os.Lchown(first, 0, 0) })
	}
	real := filepath.Join(t.TempDir(), "real-first")
	refused("a symlink", func() error {
		if err := os.Rename(first, real); err != nil {
			return err
		}
		return os.Symlink(real, first)
	}, func() error {
		if err := os.Remove(first); err != nil {
			return err
		}
		return os.Rename(real, first)
	})
	refused("missing", func() error { return os.Rename(first, real) }, func() error { return os.Rename(real, first) })
	if got := firstStageBeside(helper); got != first {
		t.Errorf("restored: %q", got)
	}
}
