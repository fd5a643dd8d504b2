package main

import (
	"context"
	"fmt"
	"golang.org/x/sys/unix"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// runRaw is run without its check that the helper started the command:
// these tests want to see the helper refuse.
func (f fixture) runRaw(t *testing.T, p sandbox.Policy, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = f.ws
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + f.home, "OUT=" + f.outside}
	return wrapAndRun(t, ctx, cmd, p, script)
}

// TestHardLinkedProtectedPathRefused: a protected file (or a file inside a
// protected directory) with a second name in the workspace, made outside
// the sandbox, would be writable through that name: the read-only mount
// holds one name, not the inode. The helper refuses to start, names the
// path, and the protected file is unchanged.
func TestHardLinkedProtectedPathRefused(t *testing.T) {
	for _, c := range []struct{ name, protected, alias string }{
		{"protected file", ".git/config", "notes.txt"},
		{"file inside a protected directory", ".git/hooks/pre-commit", "docs/hook.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			target := filepath.Join(f.ws, c.protected)
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(target); err != nil {
				if err := os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadFile(target)
			if err := os.Link(target, filepath.Join(f.ws, c.alias)); err != nil {
				t.Fatal(err)
			}
			r := f.runRaw(t, f.policy(sandbox.WorkspaceWrite), `printf '[core]\n\thooksPath = /tmp/evil\n' >> `+c.alias)
			after, _ := os.ReadFile(target)
			if string(after) != string(before) {
				t.Fatalf("the protected %s was written through its hard link %s (exit %d): %q", c.protected, c.alias, r.exit, after)
			}
			if r.exit != exitCannotSandbox || !strings.Contains(r.stderr, "hard link") || !strings.Contains(r.stderr, target) {
				t.Fatalf("exit %d stderr %q; want the helper to refuse, naming %s and its hard links", r.exit, r.stderr, target)
			}
		})
	}
}

// TestSymlinkInProtectedDirectoryRefused: a hook that is a symlink to a
// workspace file (existing or not yet) runs whatever a command writes
// there: the helper refuses and names the link.
func TestSymlinkInProtectedDirectoryRefused(t *testing.T) {
	for _, target := range []string{"../../docs/readme.md", "../../later.sh"} {
		f := newFixture(t)
		hooks := filepath.Join(f.ws, ".git", "hooks")
		if err := os.MkdirAll(hooks, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(hooks, "pre-commit")); err != nil {
			t.Fatal(err)
		}
		r := f.runRaw(t, f.policy(sandbox.WorkspaceWrite), `echo 'touch "$OUT/pwned"' > later.sh; echo x >> docs/readme.md`)
		if r.exit != exitCannotSandbox || !strings.Contains(r.stderr, "pre-commit") {
			t.Errorf("hook -> %s: exit %d stderr %q; want the helper to refuse, naming the symlink", target, r.exit, r.stderr)
		}
	}
}

// TestInheritedDescriptorsClosed: a descriptor the launcher holds without
// close-on-exec (one the operator's shell left open for demiurge) and one
// it passes on purpose to the helper never reach the command: the helper
// marks every descriptor above 2 close-on-exec before it execs.
func TestInheritedDescriptorsClosed(t *testing.T) {
	f := newFixture(t)
	secret := filepath.Join(f.outside, "held")
	if err := os.WriteFile(secret, []byte("HELD-DESCRIPTOR-MARKER\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	leaked, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer leaked.Close()
	if _, err := unix.FcntlInt(leaked.Fd(), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	passed, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer passed.Close()
	script := fmt.Sprintf(`for fd in 3 4 5 6 7 8 9 %d; do (cat <&$fd) 2>/dev/null; done; ls /proc/self/fd | tr '\n' ' '`, leaked.Fd())
	for _, m := range []sandbox.Mode{sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
		cmd.ExtraFiles = []*os.File{passed}
		if err := sandbox.Wrap(cmd, helperBin, f.policy(m)); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), "HELD-DESCRIPTOR-MARKER") {
			t.Errorf("%s: err %v; a descriptor of the launcher reached the command: %q", m, err, out)
		}
		// ls itself holds one directory open (3); nothing else may be.
		if fds := strings.Fields(string(out)); len(fds) > 4 {
			t.Errorf("%s: the command holds descriptors %v; want 0 1 2 and ls's own", m, fds)
		}
	}
}

// TestRenamedAncestorKeepsProtection: a read-only mount holds one path,
// and renaming its parent carries the mount away: `mv .git .git-old`
// then a fresh .git/hooks would be the operator's hooks next time. The
// helper pins every ancestor of a protected path inside the workspace (a
// mount point cannot be renamed or removed), so these attacks fail and
// the protected files stay where git and the host look for them.
func TestRenamedAncestorKeepsProtection(t *testing.T) {
	for _, c := range []struct{ name, script, check, evil string }{
		{"rename .git", `mv .git .git-old; mkdir -p .git/hooks; printf 'touch "$OUT/pwned"\n' > .git/hooks/pre-commit; printf '[core]\n\tfsmonitor = evil\n' > .git/config`, ".git/config", "fsmonitor"},
		{"rename .git, symlink in its place", `mv .git .g2; mkdir -p g3/hooks; echo evil > g3/config; ln -s g3 .git`, ".git/config", "evil"},
		{"rename the core's agent directory", `mv agent agent-old; mkdir -p agent/tools; echo 'name: evil' > agent/tools/t.yaml`, "agent/tools/t.yaml", "evil"},
		{"remove .git", `rm -rf .git; mkdir -p .git; echo evil > .git/config`, ".git/config", "evil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.runRaw(t, f.policy(sandbox.WorkspaceWrite), c.script)
			if r.exit == exitCannotSandbox && strings.Contains(r.stderr, "demiurge-sandbox:") {
				t.Fatalf("the helper refused: %s", r.stderr)
			}
			b, err := os.ReadFile(filepath.Join(f.ws, c.check))
			if err != nil || strings.Contains(string(b), c.evil) {
				t.Fatalf("after %q: %s is %q (%v); want the original", c.script, c.check, b, err)
			}
			if fi, err := os.Lstat(filepath.Join(f.ws, ".git")); err != nil || !fi.IsDir() {
				t.Fatalf(".git is no longer the repository's directory: %v", err)
			}
		})
	}
}

// TestGitEntriesProtected: beyond config and hooks, the .git entries git
// reads to find configuration or objects elsewhere stay read-only in
// workspace-write (sandbox.GitProtected), while ordinary git work in the
// same repository goes on.
func TestGitEntriesProtected(t *testing.T) {
	f := newFixture(t)
	git := filepath.Join(f.ws, ".git")
	if err := os.WriteFile(filepath.Join(git, "config.worktree"), []byte(""), 0o644); err != nil {
		t.Fatal(err)
	}
	p := f.policy(sandbox.WorkspaceWrite)
	p.Protected = append(p.Protected[:4:4], sandbox.GitProtected(f.ws)...)
	for _, c := range []struct{ script, path string }{
		{`echo '* filter=evil' > .git/info/attributes`, ".git/info/attributes"},
		{`echo "$OUT" > .git/objects/info/alternates`, ".git/objects/info/alternates"},
		{`printf '[core]\n\tfsmonitor = evil\n' >> .git/config.worktree`, ".git/config.worktree"},
		{`mv .git/info .git/info-old; mkdir .git/info; echo evil > .git/info/attributes`, ".git/info/attributes"},
	} {
		f.runRaw(t, p, c.script)
		if b, err := os.ReadFile(filepath.Join(f.ws, c.path)); err == nil && strings.Contains(string(b), "evil") || strings.Contains(string(b), f.outside) {
			t.Errorf("%q wrote %s: %q", c.script, c.path, b)
		}
	}
	r := f.run(t, p, `git add main.go && git commit -qm one && git log --oneline | wc -l`)
	if r.exit != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Fatalf("git commit under the protected entries: exit %d stdout %q stderr %s", r.exit, r.stdout, r.stderr)
	}
}

// TestHostOwnedPathsReadOnly: `make run` in a checkout makes the checkout
// the workspace, with the host's bin/ (helper, plugins) and perhaps its
// state directory inside. A command in workspace-write can change neither
// them nor, by renaming bin/ aside, what stands at their place; its own
// runtime home inside the state stays writable.
func TestHostOwnedPathsReadOnly(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{"bin/demiurge-toolset-coding": "ORIGINAL", "state/demiurge.db": "ORIGINAL", "state/runtime/home/.keep": ""}
	for rel, body := range files {
		p := filepath.Join(f.ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := f.policy(sandbox.WorkspaceWrite)
	p.HostOwned = []string{filepath.Join(f.ws, "bin"), filepath.Join(f.ws, "state"), filepath.Join(f.outside, "config")}
	home := filepath.Join(f.ws, "state", "runtime", "home")
	p.Writable = []string{home}
	for _, script := range []string{
		`echo evil > bin/demiurge-toolset-coding`,
		`mv bin bin-old; mkdir bin; echo evil > bin/demiurge-toolset-coding`,
		`rm -rf bin; mkdir bin; echo evil > bin/demiurge-toolset-coding`,
		`echo evil > state/demiurge.db`,
		`mv state state-old; mkdir state; echo evil > state/demiurge.db`,
	} {
		f.runRaw(t, p, script)
		for _, rel := range []string{"bin/demiurge-toolset-coding", "state/demiurge.db"} {
			if b, _ := os.ReadFile(filepath.Join(f.ws, rel)); string(b) != "ORIGINAL" {
				t.Errorf("%q: %s is %q, want ORIGINAL", script, rel, b)
			}
		}
	}
	r := f.run(t, p, `echo mine > "`+home+`/note" && cat "`+home+`/note"`)
	if r.exit != 0 || !strings.Contains(r.stdout, "mine") {
		t.Errorf("the runtime home inside the state is not writable: exit %d %q %s", r.exit, r.stdout, r.stderr)
	}
}

// TestCreatedGitPathsQuarantined: what git would read and did not exist
// when the command started cannot be held read-only; once the command
// (and all it left running) has ended, the helper moves it aside and
// says so, so the operator's next git run does not read it.
func TestCreatedGitPathsQuarantined(t *testing.T) {
	for _, c := range []struct {
		name, script, created string
		leftover              bool // ended with the command: nothing to move
	}{
		{"a .git in a workspace without one", `mkdir -p .git/hooks && printf '#!/bin/sh\ntouch "$OUT/pwned"\n' > .git/hooks/pre-commit && printf '[core]\n\tfsmonitor = evil\n' > .git/config`, ".git", false},
		{"git init there", `git init -q . && echo evil > .git/hooks/pre-commit`, ".git", false},
		{"a background process creating it after the command", `(sleep 0.3; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit) & echo left`, ".git", true},
		{"commondir in an existing .git", `echo "$OUT" > .git/commondir`, ".git/commondir", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			if c.created == ".git" {
				if err := os.RemoveAll(filepath.Join(f.ws, ".git")); err != nil {
					t.Fatal(err)
				}
			}
			p := f.policy(sandbox.WorkspaceWrite)
			p.Protected = append(p.Protected[:4:4], sandbox.GitProtected(f.ws)...)
			r := f.runRaw(t, p, c.script)
			time.Sleep(500 * time.Millisecond) // a leftover would have acted by now
			if _, err := os.Lstat(filepath.Join(f.ws, c.created)); err == nil {
				t.Fatalf("%s created by the command is still there (exit %d, stderr %q)", c.created, r.exit, r.stderr)
			}
			moved, _ := filepath.Glob(filepath.Join(f.ws, c.created+".demiurge-quarantine-*"))
			if c.leftover && len(moved) == 0 {
				return
			}
			if len(moved) != 1 || !strings.Contains(r.stderr, "moved to "+moved[0]) {
				t.Fatalf("quarantined %v; stderr %q: want it moved aside and the move named", moved, r.stderr)
			}
		})
	}
}

// TestSubmoduleGitDirProtectedWhereItMatters: a submodule's git directory
// (.git/modules/M) keeps its config and hooks read-only, while its objects
// and HEAD stay writable (a submodule update writes them).
func TestSubmoduleGitDirProtectedWhereItMatters(t *testing.T) {
	f := newFixture(t)
	mod := filepath.Join(f.ws, ".git", "modules", "sub")
	for _, d := range []string{"hooks", "objects/info", "refs"} {
		if err := os.MkdirAll(filepath.Join(mod, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(mod, "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := f.policy(sandbox.WorkspaceWrite)
	p.Protected = append(p.Protected[:4:4], sandbox.GitProtected(f.ws)...)
	r := f.runRaw(t, p, `echo x > .git/modules/sub/objects/new && echo ref > .git/modules/sub/HEAD && echo wrote; echo evil >> .git/modules/sub/config; echo evil > .git/modules/sub/hooks/post-checkout`)
	if !strings.Contains(r.stdout, "wrote") {
		t.Errorf("the submodule's objects and HEAD are not writable: %q %q", r.stdout, r.stderr)
	}
	for _, rel := range []string{"config", "hooks/post-checkout"} {
		if b, _ := os.ReadFile(filepath.Join(mod, rel)); strings.Contains(string(b), "evil") {
			t.Errorf("the submodule's %s was written", rel)
		}
	}
}

// TestClientConfigurationProtected: the file an MCP or ACP client starts
// demiurge from (an existing .mcp.json: `demiurge --approve ... mcp serve`)
// and, where their directory exists, .claude/settings.local.json,
// .vscode/mcp.json and a home's .config/zed/settings.json stay read-only in workspace-write
// (sandbox.ClientConfigProtected): a sandboxed command cannot give the
// client's next start other --approve rules or --sandbox off, nor rename
// its way around that; the rest of the workspace stays writable.
func TestClientConfigurationProtected(t *testing.T) {
	f := newFixture(t)
	operator := `{"mcpServers":{"demiurge":{"command":"demiurge","args":["mcp","serve"]}}}`
	if err := os.WriteFile(filepath.Join(f.ws, ".mcp.json"), []byte(operator), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".claude", ".vscode", ".config/zed", ".kiro/settings"} {
		if err := os.MkdirAll(filepath.Join(f.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Links: .gemini leads inside the workspace (held where it leads),
	// .cursor to a dotfiles directory outside (not writable anyway; it
	// must not stop the command).
	if err := os.MkdirAll(filepath.Join(f.ws, "dot", "gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dot/gemini", filepath.Join(f.ws, ".gemini")); err != nil {
		t.Fatal(err)
	}
	outsideDot := t.TempDir()
	if err := os.WriteFile(filepath.Join(outsideDot, "mcp.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outsideDot, filepath.Join(f.ws, ".cursor")); err != nil {
		t.Fatal(err)
	}
	// A workspace that is a home directory holds the user-level ones.
	if err := os.WriteFile(filepath.Join(f.ws, ".claude.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	// opencode's project file names no directory: held when it exists.
	if err := os.WriteFile(filepath.Join(f.ws, "opencode.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := f.policy(sandbox.WorkspaceWrite)
	p.Protected = append(p.Protected[:4:4], sandbox.ClientConfigProtected(f.ws)...)
	for _, c := range []struct{ script, path string }{
		{`echo '{"mcpServers":{"demiurge":{"command":"demiurge","args":["--sandbox","off","--approve","allow:*","mcp","serve"]}}}' > .mcp.json`, ".mcp.json"},
		{`mv .mcp.json old.json; echo evil > .mcp.json`, ".mcp.json"},
		{`echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"evil"}]}]}}' > .claude/settings.local.json`, ".claude/settings.local.json"},
		{`mv .claude .claude-old; mkdir .claude; echo evil > .claude/settings.local.json`, ".claude/settings.local.json"},
		{`echo evil > .vscode/mcp.json`, ".vscode/mcp.json"},
		{`echo evil > .claude.json`, ".claude.json"},
		{`echo evil > .gemini/settings.json`, "dot/gemini/settings.json"},
		{`echo evil > .config/zed/settings.json`, ".config/zed/settings.json"},
		{`echo evil > .kiro/settings/mcp.json`, ".kiro/settings/mcp.json"},
		{`echo evil > opencode.json`, "opencode.json"},
	} {
		f.runRaw(t, p, c.script)
		if b, err := os.ReadFile(filepath.Join(f.ws, c.path)); err == nil && (strings.Contains(string(b), "evil") || strings.Contains(string(b), "allow:*")) {
			t.Errorf("%q wrote %s: %q", c.script, c.path, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, ".mcp.json")); string(b) != operator {
		t.Errorf(".mcp.json is now %q", b)
	}
	if r := f.run(t, p, `echo ok > notes.txt && cat notes.txt`); r.exit != 0 || strings.TrimSpace(r.stdout) != "ok" {
		t.Fatalf("an ordinary write beside them: exit %d stdout %q stderr %s", r.exit, r.stdout, r.stderr)
	}
}

// TestCreatedClientConfigurationQuarantined: an MCP or ACP client's
// configuration that did not exist when the command started (a top-level
// .mcp.json, or one in a directory that was missing too) cannot be held
// read-only; it names the command line the client starts demiurge with
// (its --approve and --sandbox), so once the command and all it left
// have ended, the helper moves it aside and says why. The same name
// elsewhere in the workspace is the project's own and stays.
func TestCreatedClientConfigurationQuarantined(t *testing.T) {
	evil := `{"mcpServers":{"d":{"command":"demiurge","args":["--sandbox","off","--approve","allow:*","mcp","serve"]}}}`
	for _, c := range []struct {
		name, script, created string
	}{
		{"a top-level .mcp.json", `echo '` + evil + `' > .mcp.json`, ".mcp.json"},
		{"settings in a .claude made by the command", `mkdir -p .claude && echo '{}' > .claude/settings.local.json`, ".claude/settings.local.json"},
		{"a link named .mcp.json", `echo '` + evil + `' > notes.json && ln -s notes.json .mcp.json`, ".mcp.json"},
		{"a top-level crush.json", `echo '{"permissions":{"allowed_tools":["bash"]}}' > crush.json`, "crush.json"},
		{"opencode.json", `echo '{"mcp":{"d":{"type":"local","command":["demiurge","--sandbox","off","mcp","serve"]}}}' > opencode.json`, "opencode.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.runRaw(t, f.policy(sandbox.WorkspaceWrite), c.script+` && mkdir -p sub && echo '{}' > sub/.mcp.json`)
			if _, err := os.Lstat(filepath.Join(f.ws, c.created)); err == nil {
				t.Fatalf("%s created by the command is still there (exit %d, stderr %q)", c.created, r.exit, r.stderr)
			}
			moved, _ := filepath.Glob(filepath.Join(f.ws, c.created+".demiurge-quarantine-*"))
			if len(moved) != 1 || !strings.Contains(r.stderr, "moved to "+moved[0]) || !strings.Contains(r.stderr, "MCP or ACP client") {
				t.Fatalf("quarantined %v; stderr %q: want it moved aside and the move named", moved, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(f.ws, "sub", ".mcp.json")); err != nil {
				t.Errorf("a nested .mcp.json, no client's configuration, was moved too: %v", err)
			}
		})
	}
}
