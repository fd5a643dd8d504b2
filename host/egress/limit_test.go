package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"
)

// holdingServer accepts on loopback and holds each connection open until
// the test ends (a client's half-close included), counting what it
// accepted.
func holdingServer(t *testing.T) (netip.AddrPort, *countingServer) {
	t.Helper()
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	s := &countingServer{}
	s.addr = tcpServer(t, func(c net.Conn) {
		s.accepted.Add(1)
		io.Copy(io.Discard, c)
		<-done
		c.Close()
	})
	return s.addr, s
}

// connectThrough opens a CONNECT tunnel to target on the proxy at
// network/addr and returns the connection and the status (0: the proxy
// closed it without an answer).
func connectThrough(t *testing.T, network, addr string, target netip.AddrPort) (net.Conn, int) {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("the proxy neither answered nor closed the connection: %v", err)
		}
		return c, 0
	}
	c.SetDeadline(time.Time{})
	return c, resp.StatusCode
}

// TestConcurrentConnectionsAreBounded: a client holding maxConns
// connections open at once (silent ones, tunnels, half-closed tunnels)
// through a command's handed-over listener or a plugin's socket gets no
// more: each further one is closed without an answer and audited as
// refused, "too many connections", and reaches no server; once one ends,
// a new one is served.
func TestConcurrentConnectionsAreBounded(t *testing.T) {
	for _, via := range []string{"namespace", "socket"} {
		t.Run(via, func(t *testing.T) {
			target, srv := holdingServer(t)
			px := startProxy(t, Config{Allow: []netip.AddrPort{target}, HeaderTimeout: 10 * time.Minute})
			network, addr := "unix", px.Socket()
			if via == "namespace" {
				network, addr = "tcp", handedOver(t, px)
			}
			var tunnels, silent []net.Conn
			for i := 0; i < maxConns; i++ {
				switch i % 3 {
				case 0: // half-open: connected, nothing sent
					c, err := net.Dial(network, addr)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { c.Close() })
					silent = append(silent, c)
				default:
					c, st := connectThrough(t, network, addr, target)
					if st != 200 {
						t.Fatalf("tunnel %d: status %d", i, st)
					}
					if i%3 == 2 { // half-closed: the client's side ended
						closeWrite(c)
					}
					tunnels = append(tunnels, c)
				}
			}
			eventually(t, "every connection held has a place", func() bool { return len(px.conns) == maxConns })
			goroutines := runtime.NumGoroutine()
			const extra = 2 * maxConns
			for i := 0; i < extra; i++ {
				if _, st := connectThrough(t, network, addr, target); st != 0 {
					t.Fatalf("connection %d past %d: status %d, want closed", maxConns+i+1, maxConns, st)
				}
			}
			refused := func() int {
				n := 0
				for _, ev := range px.Events() {
					if ev.Verdict == "refused" && strings.Contains(ev.Reason, "too many connections") {
						n++
					}
				}
				return n
			}
			eventually(t, "every refusal is audited", func() bool { return refused() == extra })
			// A refused connection holds nothing of the host's (a few
			// goroutines of the runtime's may come and go).
			if got := runtime.NumGoroutine(); got > goroutines+8 {
				t.Fatalf("%d goroutines after %d refused connections, %d before", got, extra, goroutines)
			}
			if got := srv.accepted.Load(); got != int64(len(tunnels)) {
				t.Fatalf("the server accepted %d connections, %d tunnels were served", got, len(tunnels))
			}
			// One ends: its place is given back. (A tunnel whose client
			// ends waits for its server to end too, as a half-close
			// does; this server never does.)
			silent[0].Close()
			eventually(t, "the ended connection's place is given back", func() bool { return len(px.conns) < maxConns })
			if _, st := connectThrough(t, network, addr, target); st != 200 {
				t.Fatalf("after one ended: status %d", st)
			}
		})
	}
}

// TestSlowClientsLoseTheirConnection: a client that never finishes what
// it must send before the proxy can act (a request head trickled a line
// at a time, a SOCKS5 greeting trickled a byte at a time, nothing at
// all, or nothing after a kept-alive request) loses its connection at
// the header deadline, and its place with it.
func TestSlowClientsLoseTheirConnection(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body("ok"))
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}, HeaderTimeout: 300 * time.Millisecond})
	get := "GET http://" + srv.addr.String() + "/ HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, c := range []struct {
		name  string
		first string
		drip  string // sent again and again, every 50 ms
	}{
		{"connect head", "CONNECT a.test:443 HTTP/1.1\r\n", "X-A: b\r\n"},
		{"request head", "GET http://a.test/ HTTP/1.1\r\n", "X-A: b\r\n"},
		{"socks5 greeting", "\x05\xff", "\x00"}, // 255 methods: 12.75 s of drip
		{"silent", "", ""},
		{"idle after a request", get, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("unix", px.Socket())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, c.first)
			stop := make(chan struct{})
			defer close(stop)
			if c.drip != "" {
				go func() {
					for {
						select {
						case <-stop:
							return
						case <-time.After(50 * time.Millisecond):
						}
						if _, err := io.WriteString(conn, c.drip); err != nil {
							return
						}
					}
				}()
			}
			// Generous: the deadline is 300 ms; this only ends a test
			// whose proxy would hold the connection for ever.
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = io.Copy(io.Discard, conn)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the proxy still held the connection after 10 s")
			}
			eventually(t, "the connection's place is given back", func() bool { return len(px.conns) == 0 })
		})
	}
}

// eventually waits for cond; the bound only ends a test that would
// otherwise wait for ever.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not after 10 s: %s", what)
		}
	}
}
