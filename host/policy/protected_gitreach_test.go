package policy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file the repository's configuration includes, core.attributesFile and
// the core.hooksPath directory are git configuration under another name:
// an agent that wrote `.gitconfig` (included by `include.path =
// ../.gitconfig`, a common way to share a project's settings) set
// core.fsmonitor for the operator's next `git status`, outside every
// sandbox. Each is protected like .git/config, as written, through a link,
// missing or present, through a nested include and a gitfile.
func TestGitConfigurationUnderAnotherNameIsProtected(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	mustMkdir(t, root+"/.git", root+"/.husky/_", root+"/src", root+"/conf")
	mustWrite(t, root+"/.git/config", "[core]\n\thooksPath = .husky/_\n\tattributesFile = conf/attrs\n[include]\n\tpath = ../.gitconfig\n[includeIf \"onbranch:main\"]\n\tpath = ../conf/branch.cfg\n")
	mustWrite(t, root+"/.gitconfig", "[include]\n\tpath = conf/nested.cfg\n")
	mustWrite(t, root+"/src/a.go", "package a\n")
	if err := os.Symlink(".gitconfig", root+"/link-to-config"); err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Root: root}
	for _, tc := range []struct {
		rel  string
		want string // a word of the reason; "" when not protected
	}{
		{".gitconfig", "include.path"},
		{"link-to-config", "include.path"},
		{"conf/nested.cfg", "include.path"}, // missing, named by an included file
		{"conf/branch.cfg", "include.path"}, // includeIf, whatever the condition
		{"conf/attrs", "attributesFile"},
		{".husky/_/pre-commit", "core.hooksPath"},
		{".husky/_", "core.hooksPath"},
		{".husky/pre-commit.md", ""},
		{"src/a.go", ""},
		{"conf/other.cfg", ""},
	} {
		got := ws.ProtectedWhy(filepath.Join(root, tc.rel))
		if (got != "") != (tc.want != "") || !strings.Contains(got, tc.want) {
			t.Errorf("ProtectedWhy(%s) = %q, want a reason naming %q", tc.rel, got, tc.want)
		}
	}

	// A linked worktree's gitfile leads to the main repository's
	// configuration, relative paths taken from the worktree.
	wt := filepath.Join(base, "wt")
	mustMkdir(t, wt, root+"/.git/worktrees/wt")
	mustWrite(t, wt+"/.git", "gitdir: "+root+"/.git/worktrees/wt\n")
	mustWrite(t, root+"/.git/worktrees/wt/commondir", "../..\n")
	if why := (Workspace{Root: wt}).ProtectedWhy(wt + "/.husky/_/pre-push"); !strings.Contains(why, "core.hooksPath") {
		t.Errorf("a linked worktree's hooks directory: ProtectedWhy = %q", why)
	}
}

// A FIFO planted where the configuration includes a file is not waited
// on: the check reads only regular files, without blocking.
func TestGitConfigReachNeverWaitsOnAFIFO(t *testing.T) {
	root := t.TempDir()
	mustMkdir(t, root+"/.git")
	mustWrite(t, root+"/.git/config", "[include]\n\tpath = ../fifo\n")
	if err := syscall.Mkfifo(root+"/fifo", 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { done <- (Workspace{Root: root}).ProtectedWhy(root + "/fifo") }()
	select {
	case why := <-done:
		if !strings.Contains(why, "include.path") {
			t.Errorf("the FIFO the configuration includes: ProtectedWhy = %q", why)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ProtectedWhy waited on a FIFO")
	}
}

func mustMkdir(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func mustWrite(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGitProgramByRelativeNameThroughALinkedRoot: a relative word of a
// program-naming value (core.pager = tools/pager) names that path below
// any directory git runs in (sub/tools/pager for git run in sub); with the
// workspace given through a link, a link inside it that leads there is
// the program too.
func TestGitProgramByRelativeNameThroughALinkedRoot(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	mustMkdir(t, root+"/.git", root+"/sub/tools")
	mustWrite(t, root+"/.git/config", "[core]\n\tpager = tools/pager\n")
	mustWrite(t, root+"/sub/tools/pager", "#!/bin/sh\n")
	if err := os.Symlink(root, base+"/wslink"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("tools/pager", root+"/sub/alias"); err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Root: base + "/wslink"}
	for _, p := range []string{base + "/wslink/sub/tools/pager", base + "/wslink/sub/alias"} {
		if why := ws.ProtectedWhy(p); !strings.Contains(why, "relative to the directory git runs in") {
			t.Errorf("ProtectedWhy(%s) = %q", p, why)
		}
	}
	if why := ws.ProtectedWhy(base + "/wslink/sub/other"); why != "" {
		t.Errorf("sub/other: %q", why)
	}
}
