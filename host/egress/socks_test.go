package egress

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/proxy"

	"demiurge.dev/shared/netpolicy/urlcorpus"
)

// socksAsk sends a greeting offering "no authentication" and one
// request, and returns the reply's code (-1 when the proxy closed
// without one) and the open connection.
func socksAsk(t *testing.T, px *Proxy, req []byte) (int, net.Conn) {
	return socksAskThenEnd(t, px, req, false)
}

// socksAskThenEnd is socksAsk, ending the client's side after the
// request when end is set.
func socksAskThenEnd(t *testing.T, px *Proxy, req []byte, end bool) (int, net.Conn) {
	t.Helper()
	c, err := net.Dial("unix", px.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(append([]byte{5, 1, 0}, req...)); err != nil {
		return -1, c
	}
	if end {
		c.(*net.UnixConn).CloseWrite()
	}
	var m [2]byte
	if _, err := io.ReadFull(c, m[:]); err != nil || m != [2]byte{5, 0} {
		t.Fatalf("greeting answered % x (%v)", m, err)
	}
	var rep [10]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		return -1, c
	}
	return int(rep[1]), c
}

// socksConnect is a CONNECT request for a name (ATYP 3).
func socksConnect(name string, port uint16) []byte {
	b := append([]byte{5, 1, 0, 3, byte(len(name))}, name...)
	return binary.BigEndian.AppendUint16(b, port)
}

// socksConnectAddr is a CONNECT request for an address literal (ATYP 1
// or 4).
func socksConnectAddr(a netip.Addr, port uint16) []byte {
	b := []byte{5, 1, 0, 1}
	if a.Is6() {
		b[3] = 4
	}
	b = append(b, a.AsSlice()...)
	return binary.BigEndian.AppendUint16(b, port)
}

// TestSOCKS5ConnectIsPolicedLikeCONNECT: a SOCKS5 CONNECT to a name is
// resolved by the proxy once, dialled at that answer only (a rebinding
// resolver cannot move the next connection), and is a "socks5" event
// with the address and bytes each way.
func TestSOCKS5ConnectIsPolicedLikeCONNECT(t *testing.T) {
	good := startServer(t, "tcp4", "127.0.0.1:0", body("good"))
	bad := startServer(t, "tcp4", "127.0.0.2:"+port(good.addr), body("bad"))
	res := &countingResolver{answers: [][]string{{"127.0.0.1"}, {"127.0.0.2"}}}
	px := startProxy(t, Config{Operator: []Rule{{Host: "svc.test", Port: good.addr.Port()}}, Allow: []netip.AddrPort{good.addr}, Resolver: res})
	code, c := socksAsk(t, px, socksConnect("svc.test", good.addr.Port()))
	if code != socksSucceeded {
		t.Fatalf("reply %d", code)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: svc.test\r\nConnection: close\r\n\r\n")
	got, _ := io.ReadAll(c)
	c.Close()
	if !bytes.HasSuffix(got, []byte("good")) || res.lookups() != 1 {
		t.Fatalf("through the tunnel: %q after %d lookups", got, res.lookups())
	}
	waitEvents(t, px, 1)
	ev := px.Events()[0]
	if ev.Kind != "socks5" || ev.Method != "CONNECT" || ev.Host != "svc.test" || ev.Addr != good.addr.String() ||
		ev.Verdict != "allowed" || ev.Sent == 0 || ev.Recv != int64(len(got)) || ev.Allowance != good.addr.String() {
		t.Fatalf("event: %+v", ev)
	}
	if code, _ := socksAsk(t, px, socksConnect("svc.test", good.addr.Port())); code != socksNotAllowed {
		t.Fatalf("after the rebind: reply %d", code)
	}
	if bad.accepted.Load() != 0 {
		t.Fatal("the rebound address was reached")
	}
}

// waitEvents waits for n events (a connection's event comes when both
// its directions have ended).
func waitEvents(t *testing.T, px *Proxy, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); len(px.Events()) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("events: %+v, want %d", px.Events(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSOCKS5CorpusRefusedBeforeAnyDial: every host of the URL corpus,
// sent as a SOCKS5 name, and the refused classes as IPv4 and IPv6
// literals, are refused as "not allowed" before any dial: the loopback
// listeners see no connection.
func TestSOCKS5CorpusRefusedBeforeAnyDial(t *testing.T) {
	v4 := startServer(t, "tcp4", "127.0.0.1:0", body("reached"))
	v6 := startServer(t, "tcp6", "[::1]:"+port(v4.addr), body("reached"))
	p := v4.addr.Port()
	px := startProxy(t, Config{Operator: []Rule{{Host: "*", Port: p}}, Resolver: mapResolver(urlcorpus.Names)})
	names := map[string]bool{}
	for _, form := range urlcorpus.RefusedForms {
		host := authority(strings.ReplaceAll(form, "{P}", port(v4.addr)))
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if host != "" && len(host) < 256 {
			names[host] = true
		}
	}
	if len(names) < 60 {
		t.Fatalf("only %d corpus hosts", len(names))
	}
	// Each connection ends before the next: the proxy serves at most
	// maxConns at once.
	for name := range names {
		code, c := socksAsk(t, px, socksConnect(name, p))
		if code != socksNotAllowed {
			t.Errorf("name %q: reply %d", name, code)
		}
		c.Close()
	}
	for _, a := range []string{"127.0.0.1", "127.0.0.2", "0.0.0.0", "10.0.0.1", "169.254.169.254", "100.64.1.1", "192.168.1.1", "255.255.255.255", "239.1.1.1",
		"::1", "::", "::ffff:127.0.0.1", "::7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::1", "fe80::1", "fd00:ec2::254", "fd12::1", "ff02::1"} {
		code, c := socksAsk(t, px, socksConnectAddr(netip.MustParseAddr(a), p))
		if code != socksNotAllowed {
			t.Errorf("address %s: reply %d", a, code)
		}
		c.Close()
	}
	if n := v4.accepted.Load() + v6.accepted.Load(); n != 0 {
		t.Fatalf("the loopback listeners accepted %d connections through SOCKS5", n)
	}
	// Refused by the policy before a dial, not by the dial's own check
	// of the address (a second guard).
	for _, ev := range px.Events() {
		if ev.Verdict != "refused" || ev.Addr != "" || ev.Kind != "socks5" || strings.HasPrefix(ev.Reason, "cannot connect") {
			t.Fatalf("event: %+v", ev)
		}
	}
}

// TestSOCKS5BadInput: what the proxy does not take is refused with the
// reply RFC 1928 names, and nothing is dialled.
func TestSOCKS5BadInput(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body("reached"))
	sp := srv.addr.Port()
	lit := srv.addr.Addr()
	res := mapResolver{"svc.test": {"127.0.0.1"}}
	open := Config{Operator: []Rule{{Host: "svc.test", Port: sp}}, Allow: []netip.AddrPort{srv.addr}, Resolver: res}
	withCmd := func(cmd byte, b []byte) []byte { b = bytes.Clone(b); b[1] = cmd; return b }
	cases := []struct {
		name string
		cfg  Config
		req  []byte
		want int
		why  string
	}{
		{"BIND", open, withCmd(2, socksConnectAddr(lit, sp)), socksCmdNotSupported, "BIND is not supported"},
		{"UDP ASSOCIATE", open, withCmd(3, socksConnectAddr(lit, sp)), socksCmdNotSupported, "UDP ASSOCIATE is not supported"},
		{"unknown command", open, withCmd(9, socksConnectAddr(lit, sp)), socksCmdNotSupported, "command 0x9"},
		{"address type 5", open, []byte{5, 1, 0, 5, 1, 2, 3, 4, 0, 80}, socksAddrTypeNotSupport, "address type 5"},
		{"request version 4", open, []byte{4, 1, 0, 1, 127, 0, 0, 1, 0, 80}, socksGeneralFailure, "malformed"},
		{"reserved byte set", open, []byte{5, 1, 1, 1, 127, 0, 0, 1, 0, 80}, socksGeneralFailure, "malformed"},
		{"port 0", open, socksConnect("svc.test", 0), socksNotAllowed, "port must be"},
		{"empty name", open, []byte{5, 1, 0, 3, 0, 0, 80}, socksGeneralFailure, "empty host name"},
		{"name that is a URL", open, socksConnect("svc.test/@127.0.0.1", sp), socksNotAllowed, "not a host name"},
		{"name with a port", open, socksConnect("svc.test:22", sp), socksNotAllowed, "not a host name"},
		{"name with a NUL", open, socksConnect("svc.test\x00.evil", sp), socksNotAllowed, "not a host name"},
		{"unlisted port", open, socksConnect("svc.test", 22), socksNotAllowed, "operator's allowlist"},
		{"no allowlist, other port", Config{Resolver: res}, socksConnect("pub.test", 8443), socksNotAllowed, "only ports 80 and 443"},
		{"core narrows", Config{Operator: open.Operator, Core: []Rule{{Host: "other.test"}}, Allow: open.Allow, Resolver: res}, socksConnect("svc.test", sp), socksNotAllowed, "core's allowlist"},
		{"limited mode", Config{Limited: true, Operator: open.Operator, Allow: open.Allow, Resolver: res}, socksConnect("svc.test", sp), socksNotAllowed, "limited network mode"},
		{"truncated request", open, []byte{5, 1, 0, 3, 10, 'a', 'b'}, socksGeneralFailure, "truncated SOCKS5 request"},
	}
	for _, c := range cases {
		px := startProxy(t, c.cfg)
		code, _ := socksAskThenEnd(t, px, c.req, strings.HasPrefix(c.name, "truncated"))
		if code != c.want {
			t.Errorf("%s: reply %d, want %d", c.name, code, c.want)
			continue
		}
		waitEvents(t, px, 1)
		if ev := px.Events()[0]; ev.Verdict != "refused" || !strings.Contains(ev.Reason, c.why) {
			t.Errorf("%s: event %+v, want a refusal saying %q", c.name, ev, c.why)
		}
	}
	// Greetings: only "no authentication" is offered; SOCKS4 and 4a
	// are refused with their own "rejected" reply; a truncated greeting
	// ends the connection.
	for _, g := range []struct {
		name  string
		bytes []byte
		want  []byte
		why   string
	}{
		{"username/password only", []byte{5, 1, 2}, []byte{5, 0xFF}, "no method"},
		{"GSSAPI only", []byte{5, 1, 1}, []byte{5, 0xFF}, "no method"},
		{"no methods", []byte{5, 0}, []byte{5, 0xFF}, "no method"},
		{"SOCKS4", []byte{4, 1, 0, 80, 127, 0, 0, 1, 'u', 0}, []byte{0, 0x5B, 0, 0, 0, 0, 0, 0}, "SOCKS4 is not supported"},
		{"SOCKS4a", append([]byte{4, 1, 0, 80, 0, 0, 0, 1, 'u', 0}, "svc.test\x00"...), []byte{0, 0x5B, 0, 0, 0, 0, 0, 0}, "SOCKS4 is not supported"},
		{"truncated: version only", []byte{5}, nil, "truncated SOCKS5 greeting"},
		{"truncated: methods cut", []byte{5, 3, 0}, nil, "truncated SOCKS5 greeting"},
	} {
		px := startProxy(t, open)
		c, err := net.Dial("unix", px.Socket())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write(g.bytes)
		c.(*net.UnixConn).CloseWrite()
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || !bytes.Equal(got, g.want) {
			t.Errorf("%s: answered % x (%v), want % x then the end", g.name, got, err, g.want)
			continue
		}
		waitEvents(t, px, 1)
		if ev := px.Events()[0]; ev.Verdict != "refused" || !strings.Contains(ev.Reason, g.why) {
			t.Errorf("%s: event %+v", g.name, ev)
		}
	}
	if n := srv.accepted.Load(); n != 0 {
		t.Fatalf("the server was reached %d times", n)
	}
}

// TestSOCKS5WithRealClients: Go's x/net SOCKS5 dialer and curl
// (--socks5-hostname, over the proxy's unix socket) reach an allowed
// server by name, and the same clients are refused a loopback name.
func TestSOCKS5WithRealClients(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body("reached"))
	sp := port(srv.addr)
	px := startProxy(t, Config{Operator: []Rule{{Host: "svc.test", Port: srv.addr.Port()}, {Host: "loop.test", Port: srv.addr.Port()}},
		Allow: []netip.AddrPort{srv.addr}, Resolver: mapResolver{"svc.test": {"127.0.0.1"}, "loop.test": {"127.0.0.2"}}})
	d, err := proxy.SOCKS5("unix", px.Socket(), nil, proxy.Direct)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.(proxy.ContextDialer).DialContext}, Timeout: 10 * time.Second}
	resp, err := hc.Get("http://svc.test:" + sp + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "reached" {
		t.Fatalf("x/net/proxy: %q", b)
	}
	if _, err := hc.Get("http://loop.test:" + sp + "/"); err == nil || !strings.Contains(err.Error(), "not allowed by ruleset") {
		t.Fatalf("x/net/proxy to a loopback name: %v", err)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine")
	}
	sock := "socks5h://localhost" + px.Socket()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "curl", "-sS", "--proxy", sock, "http://svc.test:"+sp+"/").CombinedOutput()
	if err != nil || string(out) != "reached" {
		t.Fatalf("curl through SOCKS5: %q %v", out, err)
	}
	out, err = exec.CommandContext(ctx, "curl", "-sS", "--proxy", sock, "http://loop.test:"+sp+"/").CombinedOutput()
	// curl names the reply code: 2, "not allowed by ruleset".
	if err == nil || !strings.Contains(string(out), "Can't complete SOCKS5 connection to loop.test. (2)") {
		t.Fatalf("curl to a loopback name through SOCKS5: %q %v", out, err)
	}
	if n := srv.accepted.Load(); n != 2 {
		t.Fatalf("the server saw %d connections, want the 2 allowed", n)
	}
}
