package sandboxing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// TestLaunchRefusal: what a sandboxed command (or another user) could have
// written is refused, with the reason; what only the user could write is
// not. The directories are made under t.TempDir() (0700 in sticky /tmp).
func TestLaunchRefusal(t *testing.T) {
	ws := t.TempDir()
	held := filepath.Join(ws, "bin")
	build := filepath.Join(ws, "build")
	for _, d := range []string{held, build} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) string {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write(filepath.Join(held, "demiurge-toolset-a"), 0o755)
	loose := write(filepath.Join(build, "demiurge-toolset-b"), 0o755)
	link := filepath.Join(held, "demiurge-toolset-c")
	if err := os.Symlink("../build/demiurge-toolset-b", link); err != nil {
		t.Fatal(err)
	}
	open := write(filepath.Join(held, "demiurge-toolset-d"), 0o757)
	sticky := filepath.Join(t.TempDir(), "sticky")
	if err := os.Mkdir(sticky, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	inSticky := write(filepath.Join(sticky, "demiurge-sandbox"), 0o755)
	cfg := Config{Mode: sandbox.WorkspaceWrite, HostOwned: []string{held}}
	for _, c := range []struct {
		name, path, want string
	}{
		{"held", good, ""},
		{"workspace, not held", loose, "lies in the workspace " + ws + " outside what the sandbox holds read-only"},
		{"symlink into the workspace", link, link + " (which is " + loose + ") lies in the workspace"},
		{"writable by every user", open, "the binary " + open + " is writable by every user"},
		{"in a sticky directory", inSticky, ""},
		{"missing", filepath.Join(held, "nope"), "cannot be resolved"},
	} {
		got := cfg.LaunchRefusal(c.path, ws)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := (Config{Mode: sandbox.Off}).LaunchRefusal(loose, ws); got != "" {
		t.Errorf("mode off (commands unconfined by the operator's choice): %q", got)
	}
	if err := os.Chmod(build, 0o777); err != nil {
		t.Fatal(err)
	}
	if got := (Config{Mode: sandbox.Off}).LaunchRefusal(loose, ws); !strings.Contains(got, "its directory "+build+" is writable by every user") {
		t.Errorf("a directory above the binary writable by every user: %q", got)
	}
}
