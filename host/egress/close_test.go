package egress

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"
)

// stuckResolver never answers: a lookup ends only when its context does,
// and says so on ended.
type stuckResolver struct{ started, ended chan error }

func (r stuckResolver) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	r.started <- nil
	<-ctx.Done()
	r.ended <- ctx.Err()
	return nil, ctx.Err()
}

// TestCloseEndsLookupsInProgress: a lookup the proxy started for a
// SOCKS5 or CONNECT request ends when the proxy closes, not when a DNS
// timeout would have ended it.
func TestCloseEndsLookupsInProgress(t *testing.T) {
	for _, kind := range []string{"socks5", "connect"} {
		t.Run(kind, func(t *testing.T) {
			r := stuckResolver{started: make(chan error, 1), ended: make(chan error, 1)}
			px, err := Start(Config{Resolver: r, DialTimeout: time.Second}, nil)
			if err != nil {
				t.Fatal(err)
			}
			c, err := net.Dial("unix", px.Socket())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if kind == "socks5" {
				_, err = c.Write(append([]byte{5, 1, 0}, socksConnect("slow.test", 443)...))
			} else {
				_, err = c.Write([]byte("CONNECT slow.test:443 HTTP/1.1\r\nHost: slow.test:443\r\n\r\n"))
			}
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-r.started:
			case <-time.After(5 * time.Second):
				t.Fatal("the proxy never looked the name up")
			}
			go px.Close()
			select {
			case err := <-r.ended:
				if err == nil {
					t.Fatal("the lookup ended without its context ending")
				}
			case <-time.After(time.Second):
				t.Fatal("the proxy closed and its lookup still runs")
			}
		})
	}
}
