package netpolicy

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"

	"demiurge.dev/shared/netpolicy/urlcorpus"
)

// mapResolver is the corpus's table resolver, the one the egress proxy's
// tests use too.
type mapResolver = urlcorpus.Resolver

// errResolver fails every lookup.
type errResolver struct{}

func (errResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("server misbehaving")
}

// countingListener counts accepted connections: the proof that a refused
// target was never connected to.
type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// decisionLog collects OnDecision reports.
type decisionLog struct {
	mu   sync.Mutex
	list []Decision
}

func (d *decisionLog) add(x Decision) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, x)
}

func (d *decisionLog) all() []Decision {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Decision(nil), d.list...)
}

func listen(t *testing.T, network, addr string) *countingListener {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	return &countingListener{Listener: l}
}

func TestResolveFailsClosed(t *testing.T) {
	p := New(Options{Resolver: mapResolver{
		"public.test":  {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"private.test": {"10.0.0.7"},
		"mixed.test":   {"93.184.215.14", "127.0.0.1"},
		"mapped.test":  {"::ffff:169.254.169.254"},
		"empty.test":   {},
	}})
	cases := []struct{ host, class string }{
		{"public.test", ""},
		{"private.test", ClassPrivate},
		{"mixed.test", "mixed-answer"},
		{"mapped.test", ClassMetadata},
		{"empty.test", "dns-failure"},
		{"nxdomain.test", "dns-failure"},
		{"localhost", ClassLoopback},
		{"metadata.google.internal", ClassMetadata},
	}
	for _, c := range cases {
		tg, err := p.Check("https://" + c.host + "/x")
		if err == nil {
			_, err = p.Resolve(context.Background(), tg)
		}
		var re *RefusedError
		switch {
		case c.class == "" && err != nil:
			t.Errorf("%s: %v", c.host, err)
		case c.class != "" && (!errors.As(err, &re) || re.Class != c.class):
			t.Errorf("%s: err %v; want class %s", c.host, err, c.class)
		}
	}
	tg, _ := Check("https://any.test/")
	if _, err := New(Options{Resolver: errResolver{}}).Resolve(context.Background(), tg); !errors.Is(err, ErrRefused) {
		t.Errorf("resolver error: %v; want a refusal", err)
	}
}
