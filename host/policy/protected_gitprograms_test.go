package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/host/policy/shellguard"
	"demiurge.dev/shared/sandbox"
)

// A value of the repository's git configuration that names a workspace
// file makes git run it on the operator's next command (stop 51: a clean
// filter `./scripts/clean.sh` planted by a command under
// `--approve allow:terminal` ran on the operator's `git add`). Every word
// of every value git is not known to treat harmlessly is a program path:
// relative to the top, absolute, in a script inside quotes, the tail after
// an expansion, after an option's =, in any spelling of the key (section
// and key fold case), in config.worktree, and a relative one below any
// directory (the pager of a command that sets up no repository runs from
// the operator's working directory).
func TestProgramsGitConfigurationNamesAreProtected(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	mustMkdir(t, root+"/.git", root+"/src", root+"/sub")
	mustWrite(t, root+"/.git/config", `[core]
	repositoryformatversion = 0
	FsMonitor = "$(git rev-parse --show-toplevel)/tools/fsmon"
	sshCommand = ssh -i ./keys/deploy -o ProxyCommand=./tools/proxy
	editor = ./tools/edit
	pager = ./tools/page
[Filter "strip"]
	CLEAN = ./scripts/clean.sh %f
	smudge = sh -c './scripts/smudge.sh && ./scripts/after.sh'
	process = "\"scripts/filter proc\""
[diff "bin"]
	textconv = $GIT_DIR/../tools/textconv
	command = `+root+`/tools/extdiff
[merge "ours"]
	driver = ./tools/merge %O %A %B
[sequence]
	editor = tools/seq
[gpg]
	program = tools/gpg
[gpg "ssh"]
	program = tools/gpgssh
[credential]
	helper = !./tools/cred
[uploadpack]
	packObjectsHook = tools/pack
[alias]
	lint = !./tools/lint --all
[pager]
	log = tools/logpager
[interactive]
	diffFilter = tools/dfilter
[remote "x"]
	url = ext::sh tools/ext
[remote "origin"]
	url = ./src
[user]
	name = src
[extensions]
	worktreeConfig = true
`)
	mustWrite(t, root+"/.git/config.worktree", "[core]\n\tpager = tools/wtpager\n")
	mustWrite(t, root+"/src/a.go", "package a\n")
	ws := Workspace{Root: root}
	for _, rel := range []string{
		"tools/fsmon", "keys/deploy", "tools/proxy", "tools/edit", "tools/page",
		"scripts/clean.sh", "scripts/smudge.sh", "scripts/after.sh", "scripts/filter proc",
		"tools/textconv", "tools/extdiff", "tools/merge", "tools/seq", "tools/gpg", "tools/gpgssh",
		"tools/cred", "tools/pack", "tools/lint", "tools/logpager", "tools/dfilter", "tools/ext",
		"tools/wtpager",
		"sub/tools/page", // git -p version in sub/ runs sub/./tools/page
	} {
		if why := ws.ProtectedWhy(filepath.Join(root, rel)); !strings.Contains(why, "git configuration names") {
			t.Errorf("ProtectedWhy(%s) = %q, want the program a configuration value names", rel, why)
		}
	}
	for _, rel := range []string{"src/a.go", "src/b.go", "notes.txt", "tools/other"} {
		if why := ws.ProtectedWhy(filepath.Join(root, rel)); why != "" {
			t.Errorf("ProtectedWhy(%s) = %q, want unprotected (a harmless key's value names it, or nothing does)", rel, why)
		}
	}
}

// A workspace below the top of its repository (a package of a monorepo)
// is configured by the repository's .git/config all the same: git finds
// it from any directory. What that configuration names inside the
// workspace is protected though the workspace has no .git of its own
// (stop 51: the reach read only a .git at the workspace's top).
func TestAWorkspaceInsideItsRepositoryKeepsWhatTheConfigurationNames(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	repo := filepath.Join(base, "repo")
	ws := filepath.Join(repo, "pkg")
	mustMkdir(t, repo+"/.git", ws+"/tools", ws+"/src")
	mustWrite(t, repo+"/.git/config", "[include]\n\tpath = ../pkg/.gitconfig\n[core]\n\thooksPath = pkg/.husky\n[filter \"x\"]\n\tclean = pkg/tools/clean.sh\n")
	w := Workspace{Root: ws}
	for _, rel := range []string{".gitconfig", ".husky/pre-commit", "tools/clean.sh"} {
		if why := w.ProtectedWhy(filepath.Join(ws, rel)); why == "" {
			t.Errorf("ProtectedWhy(%s) = \"\", want it protected: the repository's configuration names it", rel)
		}
	}
	if why := w.ProtectedWhy(filepath.Join(ws, "src/a.go")); why != "" {
		t.Errorf("ProtectedWhy(src/a.go) = %q, want unprotected", why)
	}
}

// A name the configuration gives may be a symlink whose target is
// missing: whoever creates the target writes what git runs. The target is
// protected as the name is (stop 51: a dangling `tools/clean` left
// `gen/clean.sh` open to an approved-lightly write, and the sandbox neither
// held nor watched it).
func TestADanglingLinkTheConfigurationNamesKeepsItsTarget(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "ws")
	mustMkdir(t, root+"/.git", root+"/tools")
	mustWrite(t, root+"/.git/config", "[filter \"x\"]\n\tclean = ./tools/clean\n[include]\n\tpath = ../conf.link\n")
	for link, target := range map[string]string{root + "/tools/clean": "../gen/clean.sh", root + "/conf.link": "conf/real.cfg"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	w := Workspace{Root: root}
	for _, rel := range []string{"gen/clean.sh", "conf/real.cfg"} {
		if why := w.ProtectedWhy(filepath.Join(root, rel)); why == "" {
			t.Errorf("ProtectedWhy(%s) = \"\", want it protected: a link the configuration names leads there", rel)
		}
	}
	reach := shellguard.ReachOfGitConfig(root)
	_, watched := sandbox.GitReachHeld(root, append(append(reach.Files, reach.Dirs...), reach.Programs...))
	for _, rel := range []string{"gen/clean.sh", "conf/real.cfg"} {
		if !slices.Contains(watched, filepath.Join(root, rel)) {
			t.Errorf("the sandbox does not watch %s (watched %q)", rel, watched)
		}
	}
}
