package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// search_files' text names every class of file it skipped, with its count,
// even when nothing was dropped: each of them might have matched.
func TestSearchFooterNamesEverySkip(t *testing.T) {
	w := newCodingWorkspace(t)
	put := func(rel, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(w.root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("plain.txt", "needle here\n")
	put("late-binary.dat", strings.Repeat("needle in text\n", 1024)+"\x00binary tail\n") // NUL past 8 KiB
	put("linked.txt", "needle too\n")
	if err := os.Link(filepath.Join(w.root, "linked.txt"), filepath.Join(w.root, "second-link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(w.root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.txt", filepath.Join(w.root, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	put("latin1.txt", "needle caf\xe9\n")
	res := w.exec(t, "search_files", map[string]any{"pattern": "needle"})
	wantOK(t, "search", res,
		"plain.txt:1: needle here",
		"latin1.txt:1: needle caf\uFFFD",
		"dropped 0",
		"1 binary files",
		"2 multiply hard-linked files",
		"1 special files",
		"1 symlinks (not followed)",
		"1 matches shown had bytes that are not valid UTF-8",
	)
	if strings.Contains(res.Content, "needle in text") {
		t.Errorf("the binary file's lines came back:\n%s", res.Content)
	}
}
