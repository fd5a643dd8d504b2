package egress

import (
	"bytes"
	"io"
	"net/netip"
	"strings"
	"testing"

	"demiurge.dev/shared/netpolicy/urlcorpus"
)

func startDNS(t *testing.T, a map[string][][]string, aaaa map[string][]string) *urlcorpus.DNSServer {
	t.Helper()
	s, err := urlcorpus.ListenDNS(a, aaaa)
	if err != nil {
		t.Skipf("cannot listen on udp: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestDNSRebindingEndToEnd: a name server the attacker controls answers
// the operator's allowed address (127.0.0.1 at its port, by an exact
// allowance, standing in for a public host) to the first lookup, then
// another loopback address, a private one and loopback beside the
// allowed one, with TTL 0. Through real DNS packets and Go's resolver,
// every protocol the proxy speaks (a plain request, a CONNECT tunnel, a
// SOCKS5 connect) reaches the allowed server once, after exactly one
// lookup, and never the rebound address: the proxy dials the answer it
// checked and looks the name up again only for the next connection,
// whose answer it checks again.
func TestDNSRebindingEndToEnd(t *testing.T) {
	good := startServer(t, "tcp4", "127.0.0.1:0", body("good"))
	bad := startServer(t, "tcp4", "127.0.0.2:"+port(good.addr), body("bad"))
	dns := startDNS(t, map[string][][]string{
		"rebind.test.": {{"127.0.0.1"}, {"127.0.0.2"}, {"10.0.0.1"}, {"127.0.0.1", "127.0.0.2"}},
		"tunnel.test.": {{"127.0.0.1"}, {"127.0.0.2"}},
		"socks.test.":  {{"127.0.0.1"}, {"127.0.0.2"}},
		// An allowed A answer beside an AAAA answer of loopback.
		"both.test.": {{"127.0.0.1"}},
	}, map[string][]string{"both.test.": {"::1"}})
	var rules []Rule
	for _, h := range []string{"rebind.test", "tunnel.test", "socks.test", "both.test"} {
		rules = append(rules, Rule{Host: h, Port: good.addr.Port()})
	}
	px := startProxy(t, Config{Operator: rules, Allow: []netip.AddrPort{good.addr}, Resolver: dns.Resolver()})
	p := port(good.addr)

	// A plain request: the first answer, one lookup.
	resp, err := client(px).Get("http://rebind.test:" + p + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "good" || dns.AQueries("rebind.test.") != 1 {
		t.Fatalf("first request: %q after %d lookups", b, dns.AQueries("rebind.test."))
	}
	// The next three answers: another loopback address, a private one,
	// and the allowed one beside a refused one.
	for i := 2; i <= 4; i++ {
		if st := raw(t, px, "GET http://rebind.test:"+p+"/ HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.Contains(st, " 403 ") {
			t.Errorf("request %d after the rebind: %s", i, st)
		}
	}

	// A CONNECT tunnel: the same.
	tr := tunnelClient(px)
	resp, err = tr.Get("http://tunnel.test:" + p + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "good" || dns.AQueries("tunnel.test.") != 1 {
		t.Fatalf("first tunnel: %q after %d lookups", b, dns.AQueries("tunnel.test."))
	}
	if st := raw(t, px, "CONNECT tunnel.test:"+p+" HTTP/1.1\r\n\r\n"); !strings.Contains(st, " 403 ") {
		t.Errorf("tunnel after the rebind: %s", st)
	}

	// SOCKS5, which hands the proxy a name to resolve.
	code, c := socksAsk(t, px, socksConnect("socks.test", good.addr.Port()))
	if code != socksSucceeded {
		t.Fatalf("socks reply %d", code)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: socks.test\r\nConnection: close\r\n\r\n")
	got, _ := io.ReadAll(c)
	c.Close()
	if !bytes.HasSuffix(got, []byte("good")) || dns.AQueries("socks.test.") != 1 {
		t.Fatalf("first socks connect: %q after %d lookups", got, dns.AQueries("socks.test."))
	}
	if code, _ := socksAsk(t, px, socksConnect("socks.test", good.addr.Port())); code != socksNotAllowed {
		t.Errorf("socks after the rebind: reply %d", code)
	}

	// Loopback in the AAAA answer refuses the name outright.
	if st := raw(t, px, "CONNECT both.test:"+p+" HTTP/1.1\r\n\r\n"); !strings.Contains(st, " 403 ") {
		t.Errorf("an answer with ::1 beside the allowed address: %s", st)
	}

	if n := bad.accepted.Load(); n != 0 {
		t.Fatalf("the rebound address was reached %d times", n)
	}
	if n := good.accepted.Load(); n != 3 {
		t.Fatalf("the allowed server was reached %d times, want 3 (one per protocol)", n)
	}
}
