package main

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/egress"
)

// names is a resolver for the proxy: these names and no others.
type names map[string]string

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := n[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestSOCKS5FromTheSandbox: ALL_PROXY is the proxy's SOCKS5 with names
// resolved by the proxy; curl --socks5-hostname reaches an allowed
// name through it, a loopback name and a loopback address are refused,
// and SOCKS4 is refused.
func TestSOCKS5FromTheSandbox(t *testing.T) {
	needTool(t, "curl")
	srv := startLoopbackServer(t, "through-socks5")
	f := newFixture(t)
	sp := strconv.Itoa(int(srv.addr.Port()))
	p, px := proxiedPolicy(t, f, egress.Config{
		Operator: []egress.Rule{{Host: "svc.test", Port: srv.addr.Port()}, {Host: "loop.test", Port: srv.addr.Port()}},
		Allow:    []netip.AddrPort{srv.addr},
		Resolver: names{"svc.test": "127.0.0.1", "loop.test": "127.0.0.2"},
	})
	r := f.run(t, p, `echo "$ALL_PROXY $all_proxy"; curl -sS --max-time 20 --socks5-hostname "${ALL_PROXY#socks5h://}" http://svc.test:`+sp+`/`)
	if r.exit != 0 || !strings.HasPrefix(r.stdout, "socks5h://127.0.0.1:") || !strings.HasSuffix(r.stdout, "through-socks5") {
		t.Fatalf("curl --socks5-hostname: exit %d, stdout %q, stderr %s", r.exit, r.stdout, r.stderr)
	}
	ev := px.Events()
	if len(ev) != 1 || ev[0].Kind != "socks5" || ev[0].Host != "svc.test" || ev[0].Addr != srv.addr.String() || ev[0].Verdict != "allowed" || ev[0].Recv == 0 {
		t.Fatalf("events: %+v", ev)
	}
	for _, c := range []struct{ script, want string }{
		{`curl -sS --max-time 20 --proxy "$ALL_PROXY" http://loop.test:` + sp + `/`, "(2)"},
		{`NO_PROXY= no_proxy= curl -sS --max-time 20 --socks5 "${ALL_PROXY#socks5h://}" http://127.0.0.1:22/`, "(2)"},
		{`curl -sS --max-time 20 --socks4a "${ALL_PROXY#socks5h://}" http://svc.test:` + sp + `/`, "SOCKS4"},
	} {
		r := f.run(t, p, c.script)
		if r.exit == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %s", c.script, r.exit, r.stdout, r.stderr)
		}
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Fatalf("the server saw %d connections, want the one allowed", n)
	}
}

// TestGitOverSSHThroughSOCKS: git clone over ssh, from inside the
// sandbox, through ssh's ProxyCommand `nc -X 5` and the proxy's SOCKS5,
// to a real sshd on the host's loopback reached by name and the
// operator's exact allowance. The same clone to a name the URL policy
// refuses, or a port the allowlist does not name, fails with nothing
// reaching sshd.
func TestGitOverSSHThroughSOCKS(t *testing.T) {
	needTool(t, "git")
	needTool(t, "ssh")
	needTool(t, "/usr/sbin/sshd")
	needTool(t, "nc")
	if out, _ := exec.Command("nc", "-h").CombinedOutput(); !strings.Contains(string(out), "-X proto") {
		t.Fatalf("this nc has no -X (SOCKS): install netcat-openbsd (scripts/test-deps)")
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	srvDir := t.TempDir()
	repo := filepath.Join(srvDir, "repo.git")
	sh(t, "", "git", "init", "-q", "--bare", "-b", "main", repo)
	work := filepath.Join(srvDir, "work")
	sh(t, "", "git", "init", "-q", "-b", "main", work)
	sh(t, work, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "served-over-ssh")
	sh(t, work, "git", "push", "-q", repo, "main")

	// The client's key lives in the workspace under a name the sandbox
	// does not hide as a secret (the home's .ssh is hidden from commands).
	key := filepath.Join(f.ws, "deploy-ident")
	sh(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
	sh(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(srvDir, "hostkey"))
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(srvDir, "authorized_keys"), string(pub))
	sshPort := freePort(t)
	cfg := filepath.Join(srvDir, "sshd_config")
	writeFile(t, cfg, strings.Join([]string{
		"ListenAddress 127.0.0.1:" + strconv.Itoa(sshPort),
		"HostKey " + filepath.Join(srvDir, "hostkey"),
		"AuthorizedKeysFile " + filepath.Join(srvDir, "authorized_keys"),
		"PidFile none", "StrictModes no", "UsePAM no", "PasswordAuthentication no",
		"KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", "LogLevel VERBOSE",
	}, "\n")+"\n")
	if me.Uid == "0" {
		_ = os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	}
	sshdLog := &syncBuf{}
	sshd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", cfg)
	sshd.Stderr = sshdLog
	if err := sshd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sshd.Process.Kill(); sshd.Wait() })
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(sshPort))
	waitListening(t, addr.String())

	p, px := proxiedPolicy(t, f, egress.Config{
		Operator: []egress.Rule{{Host: "git.test", Port: uint16(sshPort)}, {Host: "loop.test", Port: uint16(sshPort)}},
		Allow:    []netip.AddrPort{addr},
		Resolver: names{"git.test": "127.0.0.1", "loop.test": "127.0.0.2"},
	})
	sshCmd := `ssh -F /dev/null -i ` + key + ` -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=20 -o ProxyCommand='nc -X 5 -x ${ALL_PROXY#socks5h://} %h %p'`
	clone := func(host string, port int, dest string) result {
		return f.run(t, p, `GIT_SSH_COMMAND="`+sshCmd+`" git clone -q ssh://`+me.Username+`@`+host+`:`+strconv.Itoa(port)+repo+` $TMPDIR/`+dest+` && git -C $TMPDIR/`+dest+` log --format=%s`)
	}
	r := clone("git.test", sshPort, "c1")
	if r.exit != 0 || !strings.Contains(r.stdout, "served-over-ssh") {
		t.Fatalf("git clone over ssh: exit %d\nstdout: %s\nstderr: %s\nsshd: %s", r.exit, r.stdout, r.stderr, sshdLog)
	}
	// The connection's event comes when the proxy sees both ends close,
	// which may be just after git exits.
	ev := eventsAtLeast(px, 1)
	if len(ev) != 1 || ev[0].Kind != "socks5" || ev[0].Host != "git.test" || ev[0].Addr != addr.String() || ev[0].Verdict != "allowed" || ev[0].Sent == 0 || ev[0].Recv == 0 {
		t.Fatalf("events: %+v", ev)
	}
	accepted := strings.Count(sshdLog.String(), "Connection from")
	for _, c := range []struct {
		host string
		port int
	}{{"loop.test", sshPort}, {"127.0.0.1", 22}, {"git.test", 22}} {
		r := clone(c.host, c.port, "refused")
		if r.exit == 0 {
			t.Errorf("git clone over ssh to %s:%d worked", c.host, c.port)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := strings.Count(sshdLog.String(), "Connection from"); n != accepted {
		t.Fatalf("sshd saw %d more connections after the refused clones:\n%s", n-accepted, sshdLog)
	}
	if n := len(eventsAtLeast(px, 4)); n != 4 {
		t.Fatalf("%d connections through the proxy, want 1 allowed and 3 refused: %+v", n, px.Events())
	}
	for _, e := range px.Events()[1:] {
		if e.Verdict != "refused" || e.Addr != "" {
			t.Errorf("a refused clone's connection: %+v", e)
		}
	}
}

// syncBuf is a log written by one goroutine and read by another.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func sh(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eventsAtLeast waits up to 5 s for n connection events, then returns
// what there is.
func eventsAtLeast(px *egress.Proxy, n int) []egress.Event {
	for deadline := time.Now().Add(5 * time.Second); len(px.Events()) < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return px.Events()
}
