package egress

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// dnsServer is a real DNS server on loopback UDP that answers each name's
// A queries from a script, in order (the last answer repeats), and AAAA
// queries from another, with TTL 0: a rebinding attacker's name server.
type dnsServer struct {
	addr string
	mu   sync.Mutex
	a    map[string][][]string // name (with the final dot) -> answers of the nth A query
	aaaa map[string][]string
	asks map[string]int // A queries per name
}

func startDNS(t *testing.T, a map[string][][]string, aaaa map[string][]string) *dnsServer {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Skipf("cannot listen on udp: %v", err)
	}
	t.Cleanup(func() { pc.Close() })
	s := &dnsServer{addr: pc.LocalAddr().String(), a: a, aaaa: aaaa, asks: map[string]int{}}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out := s.answer(buf[:n]); out != nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	return s
}

func (s *dnsServer) answer(req []byte) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(req)
	if err != nil {
		return nil
	}
	q, err := p.Question()
	if err != nil {
		return nil
	}
	name := strings.ToLower(q.Name.String())
	s.mu.Lock()
	var addrs []string
	known := s.a[name] != nil
	switch q.Type {
	case dnsmessage.TypeA:
		if l := s.a[name]; len(l) > 0 {
			addrs = l[min(s.asks[name], len(l)-1)]
			s.asks[name]++
		}
	case dnsmessage.TypeAAAA:
		addrs = s.aaaa[name]
	}
	s.mu.Unlock()
	rc := dnsmessage.RCodeSuccess
	if !known {
		rc = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: rc})
	b.EnableCompression()
	b.StartQuestions()
	b.Question(q)
	b.StartAnswers()
	for _, a := range addrs {
		ip := netip.MustParseAddr(a)
		rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}
		if ip.Is4() && q.Type == dnsmessage.TypeA {
			b.AResource(rh, dnsmessage.AResource{A: ip.As4()})
		} else if ip.Is6() && q.Type == dnsmessage.TypeAAAA {
			b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: ip.As16()})
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}

func (s *dnsServer) aQueries(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asks[name]
}

// resolver is Go's own DNS client (the pure Go one, as net.DefaultResolver
// is without cgo) sending its queries to s.
func (s *dnsServer) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", s.addr)
	}}
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
	px := startProxy(t, Config{Operator: rules, Allow: []netip.AddrPort{good.addr}, Resolver: dns.resolver()})
	p := port(good.addr)

	// A plain request: the first answer, one lookup.
	resp, err := client(px).Get("http://rebind.test:" + p + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "good" || dns.aQueries("rebind.test.") != 1 {
		t.Fatalf("first request: %q after %d lookups", b, dns.aQueries("rebind.test."))
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
	if string(b) != "good" || dns.aQueries("tunnel.test.") != 1 {
		t.Fatalf("first tunnel: %q after %d lookups", b, dns.aQueries("tunnel.test."))
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
	if !bytes.HasSuffix(got, []byte("good")) || dns.aQueries("socks.test.") != 1 {
		t.Fatalf("first socks connect: %q after %d lookups", got, dns.aQueries("socks.test."))
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
