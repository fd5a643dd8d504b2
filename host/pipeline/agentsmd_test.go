package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProjectInstructionsRootDownToCwd(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "AGENTS.md"), "root rules\n")
	write(t, filepath.Join(ws, "a/AGENTS.md"), "a rules\n")
	write(t, filepath.Join(ws, "a/b/c/AGENTS.md"), "c rules\n")
	write(t, filepath.Join(ws, "z/AGENTS.md"), "sibling rules\n")
	got, notes, err := ProjectInstructions(Workspace{Root: ws}, filepath.Join(ws, "a/b/c"))
	if err != nil || len(notes) != 0 {
		t.Fatalf("%v %v", err, notes)
	}
	i, j, k := strings.Index(got, "root rules"), strings.Index(got, "a rules"), strings.Index(got, "c rules")
	if i < 0 || j < i || k < j || strings.Contains(got, "sibling") {
		t.Fatalf("want root, a, c in order and no sibling:\n%s", got)
	}
	if !strings.Contains(got, "--- a/b/c/AGENTS.md ---\nc rules") {
		t.Fatalf("each file is named:\n%s", got)
	}
	// A cwd outside the workspace reads the root's file only.
	got, _, _ = ProjectInstructions(Workspace{Root: ws}, t.TempDir())
	if !strings.Contains(got, "root rules") || strings.Contains(got, "a rules") {
		t.Fatalf("cwd outside:\n%s", got)
	}
	// None at all: no text.
	if got, _, err := ProjectInstructions(Workspace{Root: t.TempDir()}, "/"); got != "" || err != nil {
		t.Fatalf("empty workspace: %q %v", got, err)
	}
}

func TestProjectInstructionsLeavesOutWhatItMustNotRead(t *testing.T) {
	ws := t.TempDir()
	outside := filepath.Join(t.TempDir(), "AGENTS.md")
	write(t, outside, "SECRET OUTSIDE\n")
	write(t, filepath.Join(ws, ".ssh/x/keep"), "")
	write(t, filepath.Join(ws, ".ssh/AGENTS.md"), "SENSITIVE DIR\n")
	if err := os.Symlink(outside, filepath.Join(ws, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "state/AGENTS.md"), "HOST STATE\n")
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "fifo2/.keep"), "")
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo2/AGENTS.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "bin/AGENTS.md"), "\xff\xfe not text")
	hidden := func(p string) bool { return strings.HasPrefix(p, filepath.Join(ws, "state")) }
	for cwd, want := range map[string]string{
		ws:                         "AGENTS.md: left out: it resolves outside the workspace",
		filepath.Join(ws, ".ssh"):  ".ssh/AGENTS.md: left out: a sensitive or host-owned path",
		filepath.Join(ws, "state"): "state/AGENTS.md: left out: a sensitive or host-owned path",
		filepath.Join(ws, "fifo2"): "fifo2/AGENTS.md: left out: not a regular file",
		filepath.Join(ws, "bin"):   "bin/AGENTS.md: left out: not UTF-8 text",
	} {
		got, notes, err := ProjectInstructions(Workspace{Root: ws, Hidden: hidden}, cwd)
		if err != nil {
			t.Fatal(err)
		}
		if got != "" {
			t.Fatalf("cwd %s: read what it must not:\n%s", cwd, got)
		}
		if !strings.Contains(strings.Join(notes, "\n"), want) {
			t.Fatalf("cwd %s: notes %q, want %q", cwd, notes, want)
		}
	}
}

func TestProjectInstructionsBounds(t *testing.T) {
	ws := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	write(t, filepath.Join(ws, "AGENTS.md"), strings.Repeat(line, 200)) // 20000 bytes, over one file's bound
	write(t, filepath.Join(ws, "a/AGENTS.md"), strings.Repeat(line, 150))
	write(t, filepath.Join(ws, "a/b/AGENTS.md"), strings.Repeat(line, 100))
	got, notes, err := ProjectInstructions(Workspace{Root: ws}, filepath.Join(ws, "a/b"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "[cut: AGENTS.md is over 16384 bytes]") {
		t.Fatal("the first file is not marked as cut")
	}
	if len(got) > MaxAgentsTotalBytes+1024 {
		t.Fatalf("%d bytes, over the total bound", len(got))
	}
	if !strings.Contains(strings.Join(notes, "\n"), "a/b/AGENTS.md: left out, the project instructions passed") {
		t.Fatalf("notes %q", notes)
	}
}
