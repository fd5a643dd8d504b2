package urlcorpus

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"

	"golang.org/x/net/dns/dnsmessage"
)

// DNSServer is a real DNS server on loopback UDP that answers each name's
// A queries from a script, in order (the last answer repeating), and its
// AAAA queries from another, with TTL 0: a rebinding attacker's name
// server, for tests that go through Go's own resolver and real packets
// rather than the policy's Resolver hook.
type DNSServer struct {
	pc   net.PacketConn
	mu   sync.Mutex
	a    map[string][][]string // name (with the final dot) -> answers of the nth A query
	aaaa map[string][]string
	asks map[string]int // A queries per name
}

// ListenDNS starts a DNS server answering a (A, by query) and aaaa; names
// are written with their final dot. Close ends it.
func ListenDNS(a map[string][][]string, aaaa map[string][]string) (*DNSServer, error) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &DNSServer{pc: pc, a: a, aaaa: aaaa, asks: map[string]int{}}
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
	return s, nil
}

// Close stops the server.
func (s *DNSServer) Close() error { return s.pc.Close() }

// AQueries is how many A queries name (with its final dot) received.
func (s *DNSServer) AQueries(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asks[name]
}

// Resolver is Go's own DNS client (the pure Go one, as net.DefaultResolver
// is without cgo) sending its queries to s.
func (s *DNSServer) Resolver() *net.Resolver {
	addr := s.pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

func (s *DNSServer) answer(req []byte) []byte {
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
	_, known := s.a[name]
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
