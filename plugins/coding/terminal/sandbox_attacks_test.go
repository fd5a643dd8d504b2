package terminal

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// secretValue sits in the workspace's .env; no sandboxed command may print it.
const secretValue = "SECRET-VALUE-4711"

// sandboxAttacks are write, network and secret-reading commands from the
// closed-world guard's attack tables, run straight through the runtime
// (as if the guard had misjudged them as read-only). {PORT} is the port of
// a loopback listener, {OUT} a directory outside the workspace.
var sandboxAttacks = []struct{ name, command string }{
	{"sort -o", `sort -o out in`},
	{"tee", `tee x < in`},
	{"redirect", `echo x > planted`},
	{"append to the core", `echo pwn >> agent.yaml`},
	{"sed -i", `sed -i s/a/z/ in`},
	{"truncate", `truncate -s 0 in`},
	{"cp", `cp in copy`},
	{"mv", `mv in moved`},
	{"rm", `rm -f in`},
	{"touch", `touch new`},
	{"mkdir", `mkdir d`},
	{"ln -s", `ln -s in link`},
	{"dd", `dd if=in of=dd.out`},
	{"find -delete", `find . -name in -delete`},
	{"python open w", `python3 -c "open('x','w').write('x')"`},
	{"perl open", `perl -e 'open(F,">x") or die; print F "x"'`},
	{"git config core.pager", `git config core.pager x`},
	{"git hook", `printf '#!/bin/sh\n' > .git/hooks/pre-commit`},
	{"write outside", `echo x > {OUT}/outside`},
	{"relative .env", `cat .env`},
	{"absolute .env", `cat "$PWD/.env"`},
	{"curl loopback", `curl -s -m 5 http://127.0.0.1:{PORT}/`},
	{"wget loopback", `wget -q -T 5 -O- http://127.0.0.1:{PORT}/`},
	{"bash /dev/tcp", `exec 3<>/dev/tcp/127.0.0.1/{PORT}`},
	{"python connect", `python3 -c "import socket; socket.create_connection(('127.0.0.1', {PORT}), 5)"`},
	{"python udp", `python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', {PORT}))"`},
}

// TestAttacksContainedReadOnly runs every attack twice in a fresh
// workspace: unconfined it must do something (write, connect or leak; else
// the row proves nothing), and under the read-only policy it must change
// no file, make no connection and print no secret.
func TestAttacksContainedReadOnly(t *testing.T) {
	helper := sandboxHelper(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test")
	}
	for _, a := range sandboxAttacks {
		t.Run(a.name, func(t *testing.T) {
			for _, confined := range []bool{false, true} {
				ws, outside := attackWorkspace(t), t.TempDir()
				port, accepted := countingListener(t)
				before, beforeOut := snapshot(t, ws), snapshot(t, outside)
				cmd := strings.NewReplacer("{PORT}", fmt.Sprint(port), "{OUT}", outside).Replace(a.command)
				req := Request{Command: cmd, Dir: ws, Root: ws, Env: testEnv("HOME=" + t.TempDir())}
				if confined {
					req.Sandbox, req.SandboxHelper = &sandbox.Policy{Mode: sandbox.ReadOnly, Workspace: ws, TmpDir: t.TempDir()}, helper
				}
				_, rec := run(t, quickRunner(), req)
				out := rec.stream("stdout") + rec.stream("stderr")
				wrote := snapshot(t, ws) != before || snapshot(t, outside) != beforeOut
				connected := accepted.Load() > 0
				leaked := strings.Contains(out, secretValue)
				did := wrote || connected || leaked
				if !confined && !did {
					t.Fatalf("unconfined, the attack did nothing (the row proves nothing); output %q", out)
				}
				if confined && did {
					t.Fatalf("read-only sandbox: wrote %v, connected %v, leaked %v; output %q", wrote, connected, leaked, out)
				}
			}
		})
	}
}

// attackWorkspace is a small git repository with a core file, an input
// and a secret.
func attackWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for name, body := range map[string]string{"in": "b\na\n", "agent.yaml": "name: t\n", ".env": "TOKEN=" + secretValue + "\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// countingListener is a loopback TCP listener (and a UDP socket on the
// same port) that counts what reaches it.
func countingListener(t *testing.T) (int, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	port := l.Addr().(*net.TCPAddr).Port
	n := &atomic.Int32{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	u, err := net.ListenPacket("udp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := u.ReadFrom(buf); err != nil {
				return
			}
			n.Add(1)
		}
	}()
	return port, n
}

// snapshot is every entry under dir with its mode, size and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d", p, fi.Mode(), fi.Size())
		if fi.Mode().IsRegular() {
			body, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", body)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
