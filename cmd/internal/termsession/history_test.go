package termsession

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestHistoryIsPrivateAndBounded: the file is 0600 (also one that was
// wider), keeps the newest lines and never grows past twice the bound.
func TestHistoryIsPrivateAndBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "history")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("old one\n\nold two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, lines, err := LoadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(lines) != "[old one old two]" {
		t.Fatalf("loaded %q", lines)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("history mode %v, want 0600", fi.Mode().Perm())
	}
	for i := range 2*HistoryLimit + 5 {
		if err := h.Add(fmt.Sprintf("line %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	_, lines, err = LoadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != HistoryLimit || lines[len(lines)-1] != fmt.Sprintf("line %d", 2*HistoryLimit+4) {
		t.Fatalf("kept %d lines ending %q", len(lines), lines[len(lines)-1])
	}
	if h.lines > 2*HistoryLimit {
		t.Fatalf("file holds %d lines", h.lines)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("compacted history mode %v, want 0600", fi.Mode().Perm())
	}
	if err := h.Add("two\nlines"); err != nil {
		t.Fatal(err)
	}
	if _, lines, _ = LoadHistory(path); lines[len(lines)-1] != "two lines" {
		t.Fatalf("a multi-line entry split: %q", lines[len(lines)-1])
	}
}
