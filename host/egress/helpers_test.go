package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/shared/netpolicy/urlcorpus"
)

// mapResolver is the URL corpus's table resolver (shared/netpolicy's
// tests use it too).
type mapResolver = urlcorpus.Resolver

// countingServer is an HTTP server on loopback that counts the
// connections it accepted.
type countingServer struct {
	addr     netip.AddrPort
	accepted atomic.Int64
}

func startServer(t *testing.T, network, addr string, h http.HandlerFunc) *countingServer {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	s := &countingServer{addr: ln.Addr().(*net.TCPAddr).AddrPort()}
	srv := &http.Server{Handler: h, ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.accepted.Add(1)
		}
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func body(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, s)
	}
}

func startProxy(t *testing.T, cfg Config) *Proxy {
	t.Helper()
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = time.Second
	}
	px, err := Start(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	return px
}

// client is an http.Client that goes through px, as a command inside the
// sandbox does (the forwarder carries bytes unchanged).
func client(px *Proxy) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyURL(mustURL("http://proxy.invalid")),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", px.Socket())
		},
		DisableKeepAlives: true,
	}, Timeout: 10 * time.Second}
}

// raw sends one request head as written and returns the status line.
func raw(t *testing.T, px *Proxy, head string) string {
	t.Helper()
	c, err := net.Dial("unix", px.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, head); err != nil {
		return "write failed: " + err.Error()
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil && line == "" {
		return "no answer: " + err.Error()
	}
	return strings.TrimSpace(line)
}

// authority is the host[:port] part of a URL form as written, for a
// CONNECT request line.
func authority(form string) string {
	_, rest, ok := strings.Cut(form, "://")
	if !ok {
		_, rest, _ = strings.Cut(form, ":")
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func port(ap netip.AddrPort) string { return strconv.Itoa(int(ap.Port())) }

// countingResolver answers from answers[i] on the i-th lookup of a name
// (the last one for the rest) and counts the lookups.
type countingResolver struct {
	mu      sync.Mutex
	answers [][]string
	n       int
}

func (r *countingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.answers[min(r.n, len(r.answers)-1)]
	r.n++
	return []netip.Addr{netip.MustParseAddr(a[0])}, nil
}

func (r *countingResolver) lookups() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// tunnelClient reaches http:// URLs through a CONNECT tunnel of px.
func tunnelClient(px *Proxy) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", px.Socket())
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				c.Close()
				return nil, err
			}
			if resp.StatusCode != 200 {
				c.Close()
				return nil, fmt.Errorf("CONNECT: %s", resp.Status)
			}
			return c, nil
		},
		DisableKeepAlives: true,
	}}
}

// tcpServer accepts on loopback until the test ends and hands each
// connection to handle on a goroutine of its own.
func tcpServer(t *testing.T, handle func(net.Conn)) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String())
}
