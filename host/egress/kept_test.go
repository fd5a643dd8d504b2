package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestManyConnectionsAreFolded: a command opening far more connections
// than the proxy keeps (through the listener handed over from its
// namespace, as a sandboxed command does) leaves the first
// maxKeptEvents in full and the rest folded: their count, bytes and
// verdicts, per host for at most maxFoldedHosts hosts and the others
// counted; the proxy's record stops growing.
func TestManyConnectionsAreFolded(t *testing.T) {
	target := tcpServer(t, func(c net.Conn) { io.Copy(io.Discard, c); c.Close() })
	px := startProxy(t, Config{Allow: []netip.AddrPort{target}})
	addr := handedOver(t, px)
	const n = 3 * maxKeptEvents
	refusedHosts := 0
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		host := target.String()
		if i%2 == 1 { // refused before any lookup: port 22 is not allowed
			host = fmt.Sprintf("h%d.test:22", i)
			refusedHosts++
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if resp.StatusCode == 200 {
			io.WriteString(c, "ping")
			c.(*net.TCPConn).CloseWrite()
			io.Copy(io.Discard, br)
		}
		c.Close()
		// In order: a tunnel's event comes when it ends, which may be
		// after the next connection's.
		eventually(t, "the connection's event", func() bool { return px.Folded().Count+len(px.Events()) == i+1 })
	}
	evs, f := px.Events(), px.Folded()
	if len(evs) != maxKeptEvents {
		t.Fatalf("kept %d events in full, want %d", len(evs), maxKeptEvents)
	}
	if f.Count != n-maxKeptEvents {
		t.Fatalf("folded %d connections, want %d", f.Count, n-maxKeptEvents)
	}
	if len(f.Hosts) != maxFoldedHosts {
		t.Fatalf("folded per host %d hosts, want at most %d", len(f.Hosts), maxFoldedHosts)
	}
	// The folded half were allowed (4 bytes each), half refused, each
	// refused one to a host of its own.
	if f.Verdicts["allowed"] != f.Count/2 || f.Verdicts["refused"] != f.Count/2 || f.Sent != int64(4*(f.Count/2)) {
		t.Fatalf("folded %+v", f)
	}
	if h := f.Hosts[0]; h.Host != target.Addr().String() || h.Port != target.Port() || h.Count != f.Count/2 || h.Reached != h.Count {
		t.Fatalf("first folded host %+v, want %s with %d", h, target, f.Count/2)
	}
	if f.Others != f.Count/2-(maxFoldedHosts-1) || f.OthersReached != 0 {
		t.Fatalf("other hosts: %d connections (%d reached), want %d (0)", f.Others, f.OthersReached, f.Count/2-(maxFoldedHosts-1))
	}
}

// TestAnEventsStringsAreClipped: a CONNECT whose host is as long as a
// request head may be is kept clipped, in its host and in its reason.
func TestAnEventsStringsAreClipped(t *testing.T) {
	px := startProxy(t, Config{})
	host := strings.Repeat("a", 100<<10) + ".test:443"
	if st := raw(t, px, "CONNECT "+host+" HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.Contains(st, " 403 ") && !strings.Contains(st, " 400 ") {
		t.Fatalf("status %s", st)
	}
	for len(px.Events()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	ev := px.Events()[0]
	if len(ev.Host) > maxEventString+len("…") || len(ev.Reason) > maxEventString+len("…") {
		t.Fatalf("kept a host of %d bytes and a reason of %d", len(ev.Host), len(ev.Reason))
	}
}
