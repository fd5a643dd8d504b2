package egress

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/proxy"

	"demiurge.dev/shared/netpolicy/urlcorpus"
)

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// TestCorpusRefusedThroughProxy: every spelling of the URL corpus, sent
// as a plain request and as a CONNECT, is refused, and the loopback
// listeners the corpus aims at see no connection. The allowlist lets
// every host through on the listener's port, so what refuses is the URL
// policy, not the port rule.
func TestCorpusRefusedThroughProxy(t *testing.T) {
	v4 := startServer(t, "tcp4", "127.0.0.1:0", body("reached"))
	v6 := startServer(t, "tcp6", "[::1]:"+port(v4.addr), body("reached"))
	px := startProxy(t, Config{Operator: []Rule{{Host: "*", Port: v4.addr.Port()}}, Resolver: mapResolver(urlcorpus.Names)})
	if len(urlcorpus.RefusedForms) < 80 {
		t.Fatalf("corpus has %d forms", len(urlcorpus.RefusedForms))
	}
	for _, form := range urlcorpus.RefusedForms {
		u := strings.ReplaceAll(form, "{P}", port(v4.addr))
		for _, head := range []string{
			"GET " + u + " HTTP/1.1\r\nHost: x\r\n\r\n",
			"CONNECT " + authority(u) + " HTTP/1.1\r\nHost: " + authority(u) + "\r\n\r\n",
		} {
			// Refused before any dial: 403 by the policy, or 400 for
			// what does not parse (a 502 would mean it tried to connect).
			if st := raw(t, px, head); !strings.Contains(st, " 403 ") && !strings.Contains(st, " 400 ") {
				t.Errorf("%q: the proxy answered %s", strings.SplitN(head, "\r\n", 2)[0], st)
			}
		}
	}
	if n := v4.accepted.Load() + v6.accepted.Load(); n != 0 {
		t.Fatalf("the loopback listeners accepted %d connections through the proxy", n)
	}
	// The control: the same listener, named by the operator's exact
	// allowance, is reached.
	px2 := startProxy(t, Config{Allow: []netip.AddrPort{v4.addr}})
	if st := raw(t, px2, "GET http://"+v4.addr.String()+"/ HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.Contains(st, " 200 ") {
		t.Fatalf("the allowed address: %s", st)
	}
}

// TestRebindingCannotMoveAConnection: the proxy looks a name up once per
// connection and dials exactly that answer; a resolver that answers an
// allowed address first and a refused one the next time reaches the
// allowed server once, and the next connection is refused (never
// reaching the second server).
func TestRebindingCannotMoveAConnection(t *testing.T) {
	good := startServer(t, "tcp4", "127.0.0.1:0", body("good"))
	bad := startServer(t, "tcp4", "127.0.0.2:"+port(good.addr), body("bad"))
	res := &countingResolver{answers: [][]string{{"127.0.0.1"}, {"127.0.0.2"}}}
	px := startProxy(t, Config{Operator: []Rule{{Host: "rebind.test", Port: good.addr.Port()}}, Allow: []netip.AddrPort{good.addr}, Resolver: res})
	resp, err := client(px).Get("http://rebind.test:" + port(good.addr) + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "good" || res.lookups() != 1 {
		t.Fatalf("first connection: %q after %d lookups", b, res.lookups())
	}
	if ev := px.Events(); len(ev) != 1 || ev[0].Addr != good.addr.String() {
		t.Fatalf("events: %+v", ev)
	}
	for _, head := range []string{
		"GET http://rebind.test:" + port(good.addr) + "/ HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT rebind.test:" + port(good.addr) + " HTTP/1.1\r\n\r\n",
	} {
		if st := raw(t, px, head); !strings.Contains(st, " 403 ") {
			t.Errorf("after the rebind: %s", st)
		}
	}
	if bad.accepted.Load() != 0 {
		t.Fatalf("the rebound address was reached")
	}
}

// TestPortsAndAllowlists: a CONNECT to a port the allowlist does not
// name is refused; without an allowlist only 80 and 443 pass; the core's
// list narrows the operator's and never widens it.
func TestPortsAndAllowlists(t *testing.T) {
	res := mapResolver{"a.test": {"93.184.215.14"}, "b.test": {"93.184.215.15"}, "x.a.test": {"93.184.215.16"}}
	cases := []struct {
		name   string
		cfg    Config
		target string
		why    string
	}{
		{"port not named", Config{Operator: []Rule{{Host: "a.test"}}}, "a.test:22", "operator's allowlist"},
		{"port not named either", Config{Operator: []Rule{{Host: "a.test", Port: 8443}}}, "a.test:443", "operator's allowlist"},
		{"no allowlist: other port", Config{}, "a.test:8443", "only ports 80 and 443"},
		{"host not listed", Config{Operator: []Rule{{Host: "a.test"}}}, "b.test:443", "operator's allowlist"},
		{"wildcard is not the apex", Config{Operator: []Rule{{Host: "*.b.test"}}}, "b.test:443", "operator's allowlist"},
		{"core narrows", Config{Core: []Rule{{Host: "a.test"}}}, "b.test:443", "core's allowlist"},
		{"core cannot widen", Config{Operator: []Rule{{Host: "a.test"}}, Core: []Rule{{Host: "b.test"}}}, "b.test:443", "operator's allowlist"},
		{"core narrows the operator", Config{Operator: []Rule{{Host: "*.a.test"}}, Core: []Rule{{Host: "y.a.test"}}}, "x.a.test:443", "core's allowlist"},
	}
	for _, c := range cases {
		c.cfg.Resolver = res
		px := startProxy(t, c.cfg)
		st := raw(t, px, "CONNECT "+c.target+" HTTP/1.1\r\n\r\n")
		ev := px.Events()
		if !strings.Contains(st, " 403 ") || len(ev) != 1 || ev[0].Verdict != "refused" || !strings.Contains(ev[0].Reason, c.why) {
			t.Errorf("%s: %s, events %+v", c.name, st, ev)
		}
	}
}

// TestLimitedMode: only GET and HEAD over plain http; every CONNECT is
// refused, since the proxy cannot see a tunnel's method.
func TestLimitedMode(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body("ok"))
	px := startProxy(t, Config{Limited: true, Allow: []netip.AddrPort{srv.addr}})
	base := "http://" + srv.addr.String() + "/"
	for _, c := range []struct{ head, want string }{
		{"GET " + base + " HTTP/1.1\r\nHost: x\r\n\r\n", " 200 "},
		{"HEAD " + base + " HTTP/1.1\r\nHost: x\r\n\r\n", " 200 "},
		{"POST " + base + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", " 403 "},
		{"PUT " + base + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", " 403 "},
		{"DELETE " + base + " HTTP/1.1\r\nHost: x\r\n\r\n", " 403 "},
		{"CONNECT " + srv.addr.String() + " HTTP/1.1\r\n\r\n", " 403 "},
	} {
		if st := raw(t, px, c.head); !strings.Contains(st, c.want) {
			t.Errorf("%s: %s, want%s", strings.Fields(c.head)[0], st, c.want)
		}
	}
	if got := srv.accepted.Load(); got != 2 {
		t.Fatalf("the server saw %d connections, want the 2 allowed", got)
	}
}

// TestBytesCountedEachWay: a plain request's bodies and a tunnel's bytes
// are counted in its event, with the address dialled.
func TestBytesCountedEachWay(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body(strings.Repeat("r", 5000)))
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	resp, err := client(px).Post("http://"+srv.addr.String()+"/", "text/plain", bytes.NewReader(make([]byte, 1234)))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	ev := px.Events()
	if len(ev) != 1 || ev[0].Sent != 1234 || ev[0].Recv != 5000 || ev[0].Addr != srv.addr.String() || ev[0].Kind != "http" || ev[0].Status != 200 {
		t.Fatalf("events: %+v", ev)
	}
}

// TestProxyGoneMidTransfer: when the proxy stops during a download (a
// plain request, a tunnel and a SOCKS5 connection), the client's transfer fails rather than
// ending as if complete, and another proxy goes on serving.
func TestProxyGoneMidTransfer(t *testing.T) {
	const total = 64 << 20
	started := make(chan struct{}, 4)
	srv := startServer(t, "tcp4", "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "67108864")
		chunk := make([]byte, 64<<10)
		for sent := 0; sent < total; sent += len(chunk) {
			if sent == 1<<20 {
				started <- struct{}{}
				time.Sleep(300 * time.Millisecond)
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	for _, scheme := range []string{"plain", "tunnel", "socks5"} {
		px, err := Start(Config{Allow: []netip.AddrPort{srv.addr}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := client(px)
		if scheme == "tunnel" {
			// CONNECT for an http URL: the transport tunnels when the
			// proxy is used for https; force it with a raw tunnel.
			c = tunnelClient(px)
		}
		if scheme == "socks5" {
			d, err := proxy.SOCKS5("unix", px.Socket(), nil, proxy.Direct)
			if err != nil {
				t.Fatal(err)
			}
			c = &http.Client{Transport: &http.Transport{DialContext: d.(proxy.ContextDialer).DialContext}}
		}
		done := make(chan error, 1)
		go func() {
			resp, err := c.Get("http://" + srv.addr.String() + "/big")
			if err != nil {
				done <- err
				return
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && n != total {
				err = errors.New("short body without an error")
			}
			done <- err
		}()
		<-started
		px.Close()
		if err := <-done; err == nil {
			t.Fatalf("%s: the download completed although the proxy stopped", scheme)
		}
	}
	other := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	if st := raw(t, other, "HEAD http://"+srv.addr.String()+"/ HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.Contains(st, " 200 ") {
		t.Fatalf("another proxy after the first stopped: %s", st)
	}
}

// TestUserinfoRefused: a plain request whose URL carries credentials is
// refused even to an allowed address (they would travel in clear).
func TestUserinfoRefused(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body("ok"))
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	if st := raw(t, px, "GET http://user:pw@"+srv.addr.String()+"/ HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.Contains(st, " 403 ") {
		t.Fatalf("userinfo: %s", st)
	}
	if srv.accepted.Load() != 0 {
		t.Fatal("the server was reached")
	}
}
