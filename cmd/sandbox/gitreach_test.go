package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// TestGitConfigurationUnderAnotherNameHeldInTheSandbox: what the
// repository's own configuration names is its configuration too. A
// project that shares settings with `include.path = ../.gitconfig` or runs
// husky (`core.hooksPath = .husky`) let a sandboxed command set
// core.fsmonitor or a pre-commit hook for the operator's next git run,
// outside every sandbox (shown with the real binary). The policy the host
// builds (sandboxing.Config.CommandPolicy) holds the ones that exist
// read-only and watches the missing ones: created, they are moved aside
// when the command ends, and said so.
func TestGitConfigurationUnderAnotherNameHeldInTheSandbox(t *testing.T) {
	f := newFixture(t)
	gitConfig := filepath.Join(f.ws, ".git", "config")
	cfg, err := os.ReadFile(gitConfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg = append(cfg, "[include]\n\tpath = ../shared.gitconfig\n\tpath = ../.gitconfig\n[core]\n\thooksPath = .husky\n[includeIf \"onbranch:main\"]\n\tpath = ../conf/branch.gitconfig\n"...)
	mustWriteFile(t, gitConfig, string(cfg))
	mustWriteFile(t, filepath.Join(f.ws, "shared.gitconfig"), "[user]\n\tname = shared\n")
	mustWriteFile(t, filepath.Join(f.ws, ".husky", "pre-commit"), "#!/bin/sh\nexit 0\n")
	p, err := sandboxing.Config{}.CommandPolicy(sandbox.WorkspaceWrite, f.ws, []string{"HOME=" + f.home, "PATH=/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	fsmonitor := "[core]\n\tfsmonitor = \"touch $OUT/pwned; false\"\n"
	r := f.runRaw(t, p, strings.Join([]string{
		`printf '` + fsmonitor + `' > shared.gitconfig`,
		`printf '#!/bin/sh\ntouch $OUT/pwned\n' > .husky/pre-commit`,
		`printf '#!/bin/sh\ntouch $OUT/pwned\n' > .husky/pre-push`,
		`mv .husky .husky-old`,
		`printf '` + fsmonitor + `' > .gitconfig`,
		`mkdir -p conf && printf '` + fsmonitor + `' > conf/branch.gitconfig`,
		`echo ok > notes.txt`,
	}, "; "))
	for rel, want := range map[string]string{"shared.gitconfig": "[user]\n\tname = shared\n", ".husky/pre-commit": "#!/bin/sh\nexit 0\n"} {
		if b, _ := os.ReadFile(filepath.Join(f.ws, rel)); string(b) != want {
			t.Errorf("the held %s was written: %q (stderr %q)", rel, b, r.stderr)
		}
	}
	if _, err := os.Lstat(filepath.Join(f.ws, ".husky", "pre-push")); err == nil {
		t.Errorf("a new hook was created in the held hooks directory")
	}
	for _, rel := range []string{".gitconfig", "conf/branch.gitconfig"} {
		if _, err := os.Lstat(filepath.Join(f.ws, rel)); err == nil {
			t.Errorf("%s, created by the command where the configuration includes it, is still there (stderr %q)", rel, r.stderr)
		}
		moved, _ := filepath.Glob(filepath.Join(f.ws, rel+".demiurge-quarantine-*"))
		if len(moved) != 1 || !strings.Contains(r.stderr, "moved to "+moved[0]) || !strings.Contains(r.stderr, "git configuration names") {
			t.Errorf("%s: quarantined %v; stderr %q: want it moved aside and the move named", rel, moved, r.stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "notes.txt")); string(b) != "ok\n" {
		t.Errorf("an ordinary write beside them failed: %q (stderr %q)", b, r.stderr)
	}
}

// A hooks directory the configuration names but that does not exist yet
// is watched: made by a command, it is moved aside whole.
func TestMissingConfiguredHooksDirectoryIsWatched(t *testing.T) {
	f := newFixture(t)
	gitConfig := filepath.Join(f.ws, ".git", "config")
	cfg, _ := os.ReadFile(gitConfig)
	mustWriteFile(t, gitConfig, string(cfg)+"[core]\n\thooksPath = .githooks\n")
	p, err := sandboxing.Config{}.CommandPolicy(sandbox.WorkspaceWrite, f.ws, []string{"HOME=" + f.home, "PATH=/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	r := f.runRaw(t, p, `mkdir .githooks && printf '#!/bin/sh\ntouch $OUT/pwned\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit`)
	if _, err := os.Lstat(filepath.Join(f.ws, ".githooks")); err == nil {
		t.Fatalf("the hooks directory the command made is still there (exit %d, stderr %q)", r.exit, r.stderr)
	}
	if moved, _ := filepath.Glob(filepath.Join(f.ws, ".githooks.demiurge-quarantine-*")); len(moved) != 1 {
		t.Errorf("quarantined %v; stderr %q", moved, r.stderr)
	}
}

func mustWriteFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}
