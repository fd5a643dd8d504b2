package corerepo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A repository whose hooks and configuration name programs (hooks,
// core.fsmonitor, core.hooksPath, filters, diff drivers, gpg, pager,
// ssh) never has them run by the host: go-git has no code that runs them.
// The last step shows the same hooks are live for the real git CLI, so the
// test can fail.
func TestHooksAndConfigProgramsNeverRun(t *testing.T) {
	r, first := initRepo(t)
	marks := t.TempDir()
	script := filepath.Join(t.TempDir(), "evil.sh")
	writeExec(t, script, "#!/bin/sh\ntouch "+marks+"/$(basename \"$0\")-config\ncat\n")
	hooks := filepath.Join(r.GitDir(), "hooks")
	for _, h := range []string{"pre-commit", "post-commit", "commit-msg", "prepare-commit-msg", "reference-transaction",
		"post-checkout", "post-merge", "pre-push", "post-rewrite", "pre-auto-gc", "fsmonitor-watchman"} {
		writeExec(t, filepath.Join(hooks, h), "#!/bin/sh\ntouch "+marks+"/"+h+"\n")
	}
	cfg, err := os.OpenFile(filepath.Join(r.GitDir(), "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.WriteString(`[core]
	fsmonitor = ` + script + `
	hooksPath = ` + hooks + `
	sshCommand = ` + script + `
	pager = ` + script + `
	editor = ` + script + `
	askPass = ` + script + `
[filter "evil"]
	clean = ` + script + `
	smudge = ` + script + `
	process = ` + script + `
	required = true
[diff "evil"]
	textconv = ` + script + `
	command = ` + script + `
[gpg]
	program = ` + script + `
[commit]
	gpgSign = true
[credential]
	helper = !` + script + `
`)
	cfg.Close()
	r, err = Open(r.StateDir) // reads the configuration anew
	if err != nil {
		t.Fatal(err)
	}

	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, ".gitattributes"), "* filter=evil diff=evil\n")
	writeFile(t, filepath.Join(work, "agents/default/notes.txt"), "hello\n")
	_, second, err := r.Commit(work, "with attributes", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Materialize(second); err != nil {
		t.Fatal(err)
	}
	if err := r.Checkout(second, filepath.Join(t.TempDir(), "again")); err != nil {
		t.Fatal(err)
	}
	var diff bytes.Buffer
	if err := r.Diff(first, second, &diff); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Log("live", 5); err != nil {
		t.Fatal(err)
	}
	if err := r.Move(Update{Ref: RefLive, Old: second, New: first}); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, marks); got != "" {
		t.Fatalf("the host ran programs the repository names: %s", got)
	}

	// The control: the real git CLI runs the reference-transaction hook.
	cmd := exec.Command("git", "--git-dir", r.GitDir(), "update-ref", RefLive, second, first)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git update-ref: %v\n%s", err, out)
	}
	if got := listDir(t, marks); !strings.Contains(got, "reference-transaction") {
		t.Fatalf("control: git did not run the hook either (%q); the test cannot tell", got)
	}
}

func writeExec(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
		t.Fatal(err)
	}
}

func listDir(t *testing.T, d string) string {
	ents, err := os.ReadDir(d)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// A core's names are plain text: a name with a newline, ESC, DEL, a C1
// control, a bidi control or bytes that are not UTF-8 is refused when a
// directory is committed (core commit, a run's review and promote check),
// named with its bytes quoted, so that no path an agent chose forges or
// hides a line of `core review` or `core diff` on the operator's terminal.
func TestCommitRefusesNamesThatAreNotPlainText(t *testing.T) {
	for _, name := range []string{"b\nwidens authority: no", "a\x1b[8m", "del\x7f", "c1\u009b8m", "agent\u202elmay.yaml", "\xff\xfe"} {
		t.Run(strconv.Quote(name), func(t *testing.T) {
			r, first := initRepo(t)
			work := filepath.Join(t.TempDir(), "work")
			if err := r.Checkout(first, work); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(work, "agents/default", name), "x\n")
			_, _, err := r.Commit(work, "m", nil)
			// Refused by the walk that reads the files (naming the operator's
			// directory), before anything is stored; Materialize refusing
			// it is a second guard.
			if err == nil || !strings.HasPrefix(err.Error(), work+": ") || !strings.Contains(err.Error(), "a core's names are plain text") {
				t.Fatalf("commit of %q: %v", name, err)
			}
			if strings.ContainsAny(err.Error(), "\n\x1b\x7f\u009b\u202e") {
				t.Fatalf("the refusal carries the name's control character: %q", err)
			}
			if live, _ := r.Live(); live != first {
				t.Fatal("live moved")
			}
		})
	}
}
