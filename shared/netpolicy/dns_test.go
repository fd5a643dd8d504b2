package netpolicy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"testing"

	"demiurge.dev/shared/netpolicy/urlcorpus"
)

// TestClientDNSRebindingEndToEnd: the policy's own client (the host's
// fetches, MCP over HTTP) against a name server it does not control,
// through real DNS packets and Go's resolver: the name answers the
// operator's allowed address (127.0.0.1 at its port, by an exact
// allowance, standing in for a public host) first and then another
// loopback address, a private one, and the allowed one beside loopback,
// with TTL 0. The first request reaches the allowed server after one
// lookup; each later one is refused before it connects, and the rebound
// server is never reached. A redirect to the same name is looked up and
// checked again as a new hop.
func TestClientDNSRebindingEndToEnd(t *testing.T) {
	good := listen(t, "tcp4", "127.0.0.1:0")
	port := good.Addr().(*net.TCPAddr).Port
	bad := listen(t, "tcp4", "127.0.0.2:"+strconv.Itoa(port))
	for _, l := range []net.Listener{good, bad} {
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hop" {
				http.Redirect(w, r, fmt.Sprintf("http://hop.test:%d/", port), http.StatusFound)
				return
			}
			fmt.Fprint(w, "served")
		})}
		go srv.Serve(l)
		t.Cleanup(func() { srv.Close() })
	}
	dns, err := urlcorpus.ListenDNS(map[string][][]string{
		"rebind.test.": {{"127.0.0.1"}, {"127.0.0.2"}, {"10.0.0.1"}, {"127.0.0.1", "127.0.0.2"}},
		"hop.test.":    {{"127.0.0.2"}},
	}, nil)
	if err != nil {
		t.Skipf("cannot listen on udp: %v", err)
	}
	defer dns.Close()
	allowed := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	c := New(Options{Resolver: dns.Resolver(), AllowPrivate: []netip.AddrPort{allowed}}).Client()
	c.Transport.(*guard).inner.DisableKeepAlives = true // every request a new connection
	get := func(path string) (string, error) {
		resp, err := c.Get(fmt.Sprintf("http://rebind.test:%d%s", port, path))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	if got, err := get("/"); err != nil || got != "served" || dns.AQueries("rebind.test.") != 1 {
		t.Fatalf("first request: %q, %v, after %d lookups", got, err, dns.AQueries("rebind.test."))
	}
	for i := 2; i <= 4; i++ {
		if got, err := get("/"); !errors.Is(err, ErrRefused) {
			t.Errorf("request %d after the rebind: %q, %v", i, got, err)
		}
	}
	if n := bad.accepted.Load(); n != 0 {
		t.Fatalf("the rebound address was reached %d times", n)
	}
	if n := good.accepted.Load(); n != 1 {
		t.Fatalf("the allowed server was reached %d times, want 1", n)
	}
	// A redirect from the allowed server to a name now answering loopback.
	c2 := New(Options{Resolver: dns.Resolver(), AllowPrivate: []netip.AddrPort{allowed}}).Client()
	c2.Transport.(*guard).inner.DisableKeepAlives = true
	resp, err := c2.Get(fmt.Sprintf("http://%s/hop", allowed))
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrRefused) || bad.accepted.Load() != 0 || dns.AQueries("hop.test.") != 1 {
		t.Fatalf("the redirect to a rebound name: %v; rebound server reached %d times; %d lookups", err, bad.accepted.Load(), dns.AQueries("hop.test."))
	}
}
