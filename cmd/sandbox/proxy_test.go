package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/egress"
	"demiurge.dev/shared/sandbox"
)

// loopbackServer is an HTTP server on the host's loopback that counts the
// connections it accepts (a connection that reached it by any way).
type loopbackServer struct {
	addr     netip.AddrPort
	accepted atomic.Int64
}

func startLoopbackServer(t *testing.T, body string) *loopbackServer {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &loopbackServer{addr: ln.Addr().(*net.TCPAddr).AddrPort()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, body)
	}), ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.accepted.Add(1)
		}
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// proxiedPolicy is the fixture's network policy through a proxy cfg.
func proxiedPolicy(t *testing.T, f fixture, cfg egress.Config) (sandbox.Policy, *egress.Proxy) {
	t.Helper()
	px, err := egress.Start(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	p := f.policy(sandbox.Network)
	p.Proxy = px.Socket()
	return p, px
}

// toolPackages are the Debian packages of the tools these tests run
// (scripts/test-deps installs them for make test).
var toolPackages = map[string]string{"curl": "curl", "git": "git", "npm": "npm", "pip": "python3-pip",
	"ssh": "openssh-client", "node": "nodejs", "/usr/sbin/sshd": "openssh-server", "nc": "netcat-openbsd"}

// needTool skips when name is missing and make test recorded why it could
// not install it (DEMIURGE_TEST_UNAVAILABLE), or outside make test; under
// make test a tool missing for no recorded reason fails.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	pkg := toolPackages[name]
	report := os.Getenv("DEMIURGE_TEST_UNAVAILABLE")
	if report == "" {
		t.Skipf("%s is not installed (make test installs %s through scripts/test-deps)", name, pkg)
	}
	data, _ := os.ReadFile(report)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.SplitN(line, "\t", 3); len(f) == 3 && f[0] == pkg {
			t.Skipf("%s is not installed: %s", name, f[2])
		}
	}
	t.Fatalf("%s is missing and make test did not record why: apt-get install %s (scripts/test-deps)", name, pkg)
}

// TestProxiedNetworkOnlyThroughProxy: in network mode a command reaches
// a loopback server through the proxy, with the operator's exact
// allowance (NO_PROXY emptied: loopback is the namespace's own by
// default), and the proxy variables set; the same server connected to
// directly (a client that ignores the proxy) is unreachable: the
// command's network namespace has no route out.
func TestProxiedNetworkOnlyThroughProxy(t *testing.T) {
	needTool(t, "curl")
	srv := startLoopbackServer(t, "through-the-proxy")
	f := newFixture(t)
	p, px := proxiedPolicy(t, f, egress.Config{Allow: []netip.AddrPort{srv.addr}})
	url := "http://" + srv.addr.String() + "/hello"

	// NO_PROXY keeps the namespace's own loopback direct; a command
	// that means the host's (the operator's allowance) says so.
	r := f.run(t, p, `NO_PROXY= no_proxy= curl -sS --max-time 20 `+url)
	if r.exit != 0 || r.stdout != "through-the-proxy" {
		t.Fatalf("through the proxy: exit %d, stdout %q, stderr %s", r.exit, r.stdout, r.stderr)
	}
	ev := px.Events()
	if len(ev) != 1 || ev[0].Verdict != "allowed" || ev[0].Addr != srv.addr.String() || ev[0].Recv == 0 || ev[0].Allowance != srv.addr.String() {
		t.Fatalf("proxy events: %+v", ev)
	}
	before := srv.accepted.Load()

	for _, direct := range []string{
		`curl -sS --max-time 5 --noproxy '*' ` + url,
		`"$PROBE" connect ` + srv.addr.String(),
	} {
		r = f.run(t, p, direct)
		if r.exit == 0 {
			t.Errorf("%s: a direct connection worked in network mode: %s", direct, r.stdout)
		}
	}
	if got := srv.accepted.Load(); got != before {
		t.Errorf("the server accepted %d direct connections from the sandbox", got-before)
	}

	r = f.run(t, p, `env | grep -i _proxy= | sort`)
	for _, want := range []string{"HTTP_PROXY=http://127.0.0.1:", "HTTPS_PROXY=", "ALL_PROXY=socks5h://127.0.0.1:", "http_proxy=", "https_proxy=", "all_proxy=socks5h://127.0.0.1:", "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy="} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the command's environment lacks %s:\n%s", want, r.stdout)
		}
	}
}

// TestProxiedNetworkFailsClosed: network mode with no proxy, or with a
// proxy that does not answer, does not run the command at all.
func TestProxiedNetworkFailsClosed(t *testing.T) {
	f := newFixture(t)
	p := f.policy(sandbox.Network)
	p.Proxy = ""
	cmd := exec.Command("/bin/sh", "-c", "echo ran")
	if err := sandbox.Wrap(cmd, helperBin, p); err == nil || !strings.Contains(err.Error(), "egress proxy") {
		t.Fatalf("network mode without a proxy: Wrap said %v", err)
	}
	dead, px := proxiedPolicy(t, f, egress.Config{})
	px.Close()
	cmd = exec.Command("/bin/sh", "-c", "echo ran")
	cmd.Dir = f.ws
	if err := sandbox.Wrap(cmd, helperBin, dead); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "ran") || !strings.Contains(string(out), "egress proxy") {
		t.Fatalf("a proxy that is gone: err %v, output %s", err, out)
	}
	// A launcher that starts the helper in the host's network namespace
	// (not through Wrap's proxied spawn): the helper refuses.
	live, _ := proxiedPolicy(t, f, egress.Config{})
	cmd = exec.Command("/bin/sh", "-c", "echo ran")
	cmd.Dir = f.ws
	if err := sandbox.Wrap(cmd, helperBin, live); err != nil {
		t.Fatal(err)
	}
	// helper --spawn NET ..., or FIRST-STAGE helper NET ... (the small
	// first stage beside the helper): the network is the third word.
	if (cmd.Args[1] != "--spawn" && cmd.Args[1] != helperBin) || cmd.Args[2] != "proxied" {
		t.Fatalf("Wrap's argv: %q", cmd.Args[:3])
	}
	cmd.Args[2] = "online"
	out, err = cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "ran") || !strings.Contains(string(out), "private network namespace") {
		t.Fatalf("started in the host's network namespace: err %v, output %s", err, out)
	}
	// A socket that is still there with no one listening on it.
	stale := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	dead.Proxy = stale
	cmd = exec.Command("/bin/sh", "-c", "echo ran")
	cmd.Dir = f.ws
	if err := sandbox.Wrap(cmd, helperBin, dead); err != nil {
		t.Fatal(err)
	}
	out, err = cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "ran") || !strings.Contains(string(out), "egress proxy does not answer") {
		t.Fatalf("a proxy socket nobody listens on: err %v, output %s", err, out)
	}
	// Something answers on the socket but does not take the namespace's
	// listener (no acknowledgement): the command does not run.
	mute := filepath.Join(t.TempDir(), "mute.sock")
	ml, err := net.Listen("unix", mute)
	if err != nil {
		t.Fatal(err)
	}
	defer ml.Close()
	go func() {
		for {
			c, err := ml.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	dead.Proxy = mute
	cmd = exec.Command("/bin/sh", "-c", "echo ran")
	cmd.Dir = f.ws
	if err := sandbox.Wrap(cmd, helperBin, dead); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			ml.Close()
		}
	}()
	out, err = cmd.CombinedOutput()
	close(done)
	if err == nil || strings.Contains(string(out), "ran") || !strings.Contains(string(out), "did not take the namespace's listener") {
		t.Fatalf("a socket that does not take the listener: err %v, output %s", err, out)
	}
}

// TestProxyGoneFailsTheCommandsTransfer: the proxy stops while a
// sandboxed curl downloads through it; curl fails (it does not report a
// complete download), and a command through another proxy still works.
func TestProxyGoneFailsTheCommandsTransfer(t *testing.T) {
	needTool(t, "curl")
	started := make(chan struct{}, 1)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			fmt.Fprint(w, "still-works")
			return
		}
		w.Header().Set("Content-Length", "268435456")
		chunk := make([]byte, 64<<10)
		for sent := 0; sent < 256<<20; sent += len(chunk) {
			if sent == 1<<20 {
				select {
				case started <- struct{}{}:
				default:
				}
				time.Sleep(500 * time.Millisecond)
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	f := newFixture(t)
	p, px := proxiedPolicy(t, f, egress.Config{Allow: []netip.AddrPort{addr}})
	go func() {
		<-started
		px.Close()
	}()
	r := f.run(t, p, `NO_PROXY= no_proxy= curl -sS --max-time 30 -o /dev/null http://`+addr.String()+`/big`)
	if r.exit == 0 {
		t.Fatalf("curl reported a complete download although the proxy stopped mid-transfer: %s", r.stderr)
	}
	p2, _ := proxiedPolicy(t, f, egress.Config{Allow: []netip.AddrPort{addr}})
	r = f.run(t, p2, `NO_PROXY= no_proxy= curl -sS --max-time 20 http://`+addr.String()+`/small`)
	if r.exit != 0 || r.stdout != "still-works" {
		t.Fatalf("another command after the first proxy stopped: exit %d %s %s", r.exit, r.stdout, r.stderr)
	}
}

// TestAnAllowanceIsOneAddressInEverySpelling: the operator's exact
// allowance of a loopback ADDRESS:PORT lets a command reach that address
// at that port however the URL spells it (decimal, octal, hex, short and
// IPv4-mapped forms), through plain http, a CONNECT tunnel and SOCKS5,
// and nothing next to it: another loopback address, ::1, localhost, the
// next port. (Probed with the real binary first: every verdict below.)
func TestAnAllowanceIsOneAddressInEverySpelling(t *testing.T) {
	needTool(t, "curl")
	srv := startLoopbackServer(t, "allowed")
	f := newFixture(t)
	p, px := proxiedPolicy(t, f, egress.Config{Allow: []netip.AddrPort{srv.addr}, Operator: []egress.Rule{{Host: "*", Port: srv.addr.Port()}}})
	port := fmt.Sprint(srv.addr.Port())
	next := fmt.Sprint(srv.addr.Port() + 1)
	var script strings.Builder
	script.WriteString("export NO_PROXY= no_proxy=\n")
	probe := func(label, flags, url string) {
		fmt.Fprintf(&script, "echo \"%s $(curl -s -o /dev/null -w '%%{http_code}' --max-time 10 %s '%s')\"\n", label, flags, url)
	}
	allowed := []string{"127.0.0.1", "127.1", "2130706433", "0x7f.1", "0177.0.0.1", "[::ffff:127.0.0.1]"}
	for _, h := range allowed {
		probe("http-ok "+h, "", "http://"+h+":"+port+"/")
		probe("connect-ok "+h, "-p", "http://"+h+":"+port+"/")
	}
	for _, h := range []string{"127.0.0.1", "127.1", "2130706433"} {
		probe("socks-ok "+h, `--socks5-hostname "${ALL_PROXY#socks5h://}"`, "http://"+h+":"+port+"/")
	}
	for _, u := range []string{"[::1]:" + port, "127.0.0.2:" + port, "localhost:" + port, "127.0.0.1:" + next, "0x7f.1:" + next, "169.254.169.254:" + port} {
		probe("http-no "+u, "", "http://"+u+"/")
		probe("connect-no "+u, "-p", "http://"+u+"/")
		probe("socks-no "+u, `--socks5-hostname "${ALL_PROXY#socks5h://}"`, "http://"+u+"/")
	}
	r := f.run(t, p, script.String())
	if r.exit != 0 {
		t.Fatalf("exit %d: %s %s", r.exit, r.stdout, r.stderr)
	}
	oks := 0
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		label, code, _ := strings.Cut(line, " ")
		host, code := code[:strings.LastIndexByte(code, ' ')], code[strings.LastIndexByte(code, ' ')+1:]
		switch {
		case strings.HasSuffix(label, "-ok") && code != "200":
			t.Errorf("%s %s: %s, want 200 (the allowed address)", label, host, code)
		case strings.HasSuffix(label, "-ok"):
			oks++
		case code == "200":
			t.Errorf("%s %s: reached the server", label, host)
		}
	}
	if got := srv.accepted.Load(); got != int64(oks) || oks != 2*len(allowed)+3 {
		t.Errorf("the server accepted %d connections; %d allowed probes answered", got, oks)
	}
	refused := 0
	for _, ev := range px.Events() {
		if ev.Verdict == "refused" {
			refused++
		}
	}
	if refused != 18 {
		t.Errorf("the proxy refused %d connections, want 18", refused)
	}
}
