package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSensitiveCachedFollowsChanges changes a workspace step by step,
// right after each scan (inside the racy margin and well after it), and
// checks the cached answer against a fresh walk every time.
func TestSensitiveCachedFollowsChanges(t *testing.T) {
	ws := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"initial tree", func() { write("src/a/main.go"); write("src/b/util.go"); write("README") }},
		{"new .env deep down", func() { write("src/a/.env") }},
		{"new key in another dir", func() { write("src/b/id_ed25519") }},
		{"sensitive dir created", func() { write("deploy/.ssh/config") }},
		{"file removed", func() { must(t, os.Remove(filepath.Join(ws, "src/a/.env"))) }},
		{"dir renamed onto a sensitive name", func() { must(t, os.Rename(filepath.Join(ws, "src/b"), filepath.Join(ws, "src/.aws"))) }},
		{"dir replaced by one with a secret", func() {
			must(t, os.RemoveAll(filepath.Join(ws, "src/a")))
			write("src/a/credentials.json")
		}},
		{".env renamed away", func() {
			must(t, os.Rename(filepath.Join(ws, "src/a/credentials.json"), filepath.Join(ws, "src/a/plain.json")))
		}},
	}
	for _, wait := range []time.Duration{0, 2 * racyMargin} {
		ws = t.TempDir()
		for _, s := range steps {
			s.change()
			time.Sleep(wait) // not a sync: moves the change out of the racy margin
			want, err := SensitiveIn(ws)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second call is served from the cache
				got, err := SensitiveCached(ws)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("wait %v, after %q: cached %v, walk %v", wait, s.name, got, want)
				}
			}
		}
	}
}

// TestSensitiveCachedBound keeps the scan bound of the walk.
func TestSensitiveCachedBound(t *testing.T) {
	ws := t.TempDir()
	for i := range 5 {
		must(t, os.WriteFile(filepath.Join(ws, string(rune('a'+i))), nil, 0o644))
	}
	old := maxScanEntries
	maxScanEntries = 3
	defer func() { maxScanEntries = old }()
	if _, err := SensitiveCached(ws); err == nil {
		t.Fatal("a workspace over the bound was scanned")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
