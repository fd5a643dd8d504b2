package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// attack is one thing a command must not manage inside the sandbox. It
// "worked" when the script exits 0 and, if leak is set, printed leak. Each
// attack must work under mode off (so the test can fail), and must not
// work in the modes that do not list it in allowed.
type attack struct {
	name    string
	script  string
	leak    string
	allowed []sandbox.Mode
	// rootOnly: outside a sandbox this works only for root (raw sockets).
	rootOnly bool
	// kernelMay: the kernel may not offer the way in at all (a kernel
	// built or booted without 32-bit syscall emulation faults on int
	// 0x80); when the unconfined control fails, the attack is skipped.
	kernelMay bool
}

// listeners opens what the network attacks aim at: a TCP listener and a
// UDP socket on loopback, an abstract unix socket, and a long-lived
// process outside the sandbox (for ptrace and signals).
type listeners struct {
	tcp, udp, abstract, unixPath string
	pid                          int
}

func openListeners(t *testing.T) listeners {
	t.Helper()
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ul, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	go func() { // echoes, so a datagram that never left the sandbox does not count
		buf := make([]byte, 64)
		for {
			n, from, err := ul.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = ul.WriteTo(buf[:n], from)
		}
	}()
	name := fmt.Sprintf("demiurge-sandbox-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	al, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { al.Close() })
	go func() {
		for {
			c, err := al.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	unixPath := filepath.Join(t.TempDir(), "host.sock")
	pl, err := net.Listen("unix", unixPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pl.Close() })
	go func() {
		for {
			c, err := pl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	// The stand-in for the plugin: a process outside every sandbox.
	victim := exec.Command("sleep", "120")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	return listeners{tcp: tl.Addr().String(), udp: ul.LocalAddr().String(), abstract: name, unixPath: unixPath, pid: victim.Process.Pid}
}

func attacks(l listeners) []attack {
	ww := []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.Network}
	return []attack{
		// The file system outside the workspace.
		{name: "write outside the workspace", script: `echo x > "$OUT/planted" && test -s "$OUT/planted"`},
		{name: "write the home directory", script: `echo x > "$HOME/.bashrc"`},
		{name: "read the home ssh key", script: `cat "$HOME/.ssh/id_rsa"`, leak: sshSecret},
		{name: "symlink to the ssh key", script: `ln -sf "$HOME/.ssh/id_rsa" link && cat link`, leak: sshSecret},
		{name: "hard link to the ssh key", script: `ln "$HOME/.ssh/id_rsa" stolen && cat stolen`, leak: sshSecret},
		{name: "copy the ssh key", script: `cp "$HOME/.ssh/id_rsa" stolen2 && cat stolen2`, leak: sshSecret},
		{name: "read /etc/shadow", script: `cat /etc/shadow`, leak: "root:", rootOnly: true},
		// Sensitive files inside the workspace.
		{name: "read the workspace .env", script: `cat .env`, leak: envSecret},
		{name: "read a nested .env.local", script: `cat sub/.env.local`, leak: envSecret},
		{name: "read a key file", script: `cat certs/server.key`, leak: keySecret},
		{name: "grep the workspace for secrets", script: `grep -r SECRET-MARKER .`, leak: "SECRET-MARKER"},
		{name: "tar the workspace", script: `tar cf - . 2>/dev/null | grep -a SECRET-MARKER`, leak: "SECRET-MARKER"},
		// The agent core and git's executable configuration.
		{name: "append to agent.yaml", script: `echo "pwn: 1" >> agent.yaml`},
		{name: "replace agent.yaml", script: `rm -f agent.yaml && echo "pwn: 1" > agent.yaml`},
		{name: "rename agent.yaml away", script: `mv agent.yaml gone.yaml`},
		{name: "plant an authored tool", script: `echo "name: evil" > agent/tools/evil.yaml`},
		{name: "edit an authored tool", script: `echo "pwn: 1" >> agent/tools/t.yaml`},
		{name: "plant an mcp manifest", script: `echo "{}" > agent/mcp/evil.json`},
		{name: "plant a skill", script: `mkdir -p skills/evil && echo "# evil" > skills/evil/SKILL.md`},
		{name: "edit .git/config", script: `echo "[core] hooksPath = /tmp" >> .git/config`},
		{name: "git config writes .git/config", script: `git config core.hooksPath "$OUT"`},
		{name: "plant a git hook", script: `printf '#!/bin/sh\necho pwn\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`},
		{name: "replace .git/hooks", script: `mv .git/hooks .git/hooks.old && mkdir .git/hooks`},
		// Writes the read-only mode forbids and workspace-write allows.
		{name: "write a new workspace file", script: `echo x > new.txt && cat new.txt`, leak: "x", allowed: ww},
		{name: "delete a workspace file", script: `rm docs/readme.md`, allowed: ww},
		// The network.
		// Network mode reaches out only through the egress proxy: a
		// direct connection has no route out of its namespace.
		{name: "connect to a loopback TCP listener", script: `"$PROBE" connect ` + l.tcp},
		{name: "connect over MPTCP", script: `"$PROBE" mptcp ` + l.tcp},
		{name: "send a UDP datagram and get the echo", script: `"$PROBE" udp ` + l.udp},
		{name: "open a raw socket", script: `"$PROBE" raw`, rootOnly: true},
		{name: "open a packet socket", script: `"$PROBE" packet`, rootOnly: true},
		{name: "connect to an abstract unix socket", script: `"$PROBE" abstract ` + l.abstract},
		{name: "connect to a unix socket outside", script: `"$PROBE" unix ` + l.unixPath},
		// Other processes and the kernel.
		{name: "ptrace a process outside", script: fmt.Sprintf(`"$PROBE" ptrace %d`, l.pid)},
		{name: "signal a process outside", script: fmt.Sprintf(`"$PROBE" signal %d`, l.pid)},
		{name: "create a user namespace", script: `"$PROBE" userns`},
		{name: "create a user namespace through clone3", script: `"$PROBE" userns-clone3`},
		{name: "use the kernel keyring", script: `"$PROBE" keyctl`},
		{name: "keep a capability", script: `"$PROBE" capability`, rootOnly: true},
		{name: "use the keyring through int 0x80", script: `"$PROBE" compat-keyctl`, kernelMay: true},
	}
}

// TestAttacksContained runs every attack under the real helper in
// read-only, workspace-write and network, and unconfined (off) as the
// control.
func TestAttacksContained(t *testing.T) {
	l := openListeners(t)
	root := os.Geteuid() == 0
	for _, a := range attacks(l) {
		t.Run(a.name, func(t *testing.T) {
			for _, m := range []sandbox.Mode{sandbox.Off, sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.Network} {
				f := newFixture(t)
				r := f.run(t, f.policy(m), a.script)
				worked := r.exit == 0 && (a.leak == "" || strings.Contains(r.stdout, a.leak))
				want := m == sandbox.Off || contains(a.allowed, m)
				if m == sandbox.Off && a.rootOnly && !root {
					continue
				}
				if m == sandbox.Off && a.kernelMay && !worked {
					t.Skipf("this kernel does not offer it: unconfined it failed too (exit %d: %s)", r.exit, firstLine(r.stderr))
				}
				if worked != want {
					t.Errorf("mode %s: worked=%v, want %v\nexit %d\nstdout: %s\nstderr: %s", m, worked, want, r.exit, r.stdout, r.stderr)
				}
			}
		})
	}
}

func contains(ms []sandbox.Mode, m sandbox.Mode) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// firstLine is the first line of s, for a skip message.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
