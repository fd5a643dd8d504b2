package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// TestUnprivilegedLauncher: the sandbox needs no root. The launcher (this
// test binary in -launch mode) runs as nobody, creates the namespaces and
// starts the real helper; the attacks stay contained and the same commands
// work under off. Needs root only to become nobody.
func TestUnprivilegedLauncher(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	const nobody = 65534
	f := newFixture(t)
	bin := filepath.Join(filepath.Dir(helperBin), "launcher.test")
	copyFile(t, os.Args[0], bin)
	// nobody must reach and own the fixture, as a user owns a workspace.
	for d := f.root; d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil && d == f.root {
			t.Fatal(err)
		}
		if d == os.TempDir() {
			break
		}
	}
	if err := filepath.Walk(f.root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	run := func(m sandbox.Mode, script string) (string, int) {
		p := f.policy(m)
		p.ReadOnly = []string{filepath.Dir(probeBin)}
		enc, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-launch", helperBin, string(enc), script)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + f.home, "OUT=" + f.outside, "PROBE=" + probeBin}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := run(sandbox.WorkspaceWrite, `id -u; echo made > made.txt && cat made.txt`); code != 0 || !strings.Contains(out, "65534") || !strings.Contains(out, "made") {
		t.Fatalf("workspace-write as nobody: exit %d: %s", code, out)
	}
	for _, a := range []struct{ script, leak string }{
		{`echo pwn >> agent.yaml`, ""},
		{`echo x > "$OUT/planted"`, ""},
		{`cat .env`, envSecret},
		{`cat "$HOME/.ssh/id_rsa"`, sshSecret},
		{`"$PROBE" userns`, ""},
	} {
		worked := func(m sandbox.Mode) bool {
			out, code := run(m, a.script)
			return code == 0 && (a.leak == "" || strings.Contains(out, a.leak))
		}
		if !worked(sandbox.Off) {
			t.Errorf("%q does not work unconfined as nobody: the case proves nothing", a.script)
		}
		if worked(sandbox.WorkspaceWrite) {
			t.Errorf("%q worked as nobody under workspace-write", a.script)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
