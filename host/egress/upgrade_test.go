package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// startEcho is a WebSocket echo server on loopback (x/net/websocket),
// with /other answering 101 to another protocol than asked.
func startEcho(t *testing.T) *countingServer {
	mux := http.NewServeMux()
	mux.Handle("/ws", websocket.Handler(func(c *websocket.Conn) { io.Copy(c, c) }))
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Upgrade", "h2c")
		w.WriteHeader(http.StatusSwitchingProtocols)
	})
	return startServer(t, "tcp4", "127.0.0.1:0", mux.ServeHTTP)
}

// wsHandshake sends a WebSocket handshake for path as an absolute-form
// request to the proxy and returns the status line and the reader after
// the response head.
func wsHandshake(t *testing.T, px *Proxy, target, path string) (string, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", px.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET http://"+target+path+" HTTP/1.1\r\nHost: "+target+"\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://"+target+"\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return "no answer: " + err.Error(), c, br
	}
	return resp.Status, c, br
}

// maskedText is a client's masked WebSocket text frame (RFC 6455 §5).
func maskedText(s string) []byte {
	mask := []byte{1, 2, 3, 4}
	f := append([]byte{0x81, 0x80 | byte(len(s))}, mask...)
	for i := range len(s) {
		f = append(f, s[i]^mask[i%4])
	}
	return f
}

// TestWebSocketOverPlainHTTP: a WebSocket handshake sent to the proxy as
// a plain http request is judged like any request, passed on with its
// Upgrade, and once the server switches, frames go both ways and are
// counted in the event (status 101).
func TestWebSocketOverPlainHTTP(t *testing.T) {
	srv := startEcho(t)
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	st, c, br := wsHandshake(t, px, srv.addr.String(), "/ws")
	if !strings.HasPrefix(st, "101") {
		t.Fatalf("handshake: %s", st)
	}
	msg := "hello through the proxy"
	c.Write(maskedText(msg))
	head := make([]byte, 2)
	if _, err := io.ReadFull(br, head); err != nil || head[0] != 0x81 || int(head[1]) != len(msg) {
		t.Fatalf("echo frame head % x (%v)", head, err)
	}
	got := make([]byte, len(msg))
	io.ReadFull(br, got)
	if string(got) != msg {
		t.Fatalf("echo %q", got)
	}
	c.Close()
	waitEvents(t, px, 1)
	ev := px.Events()[0]
	if ev.Kind != "http" || ev.Status != 101 || ev.Verdict != "allowed" || ev.Addr != srv.addr.String() ||
		ev.Sent != int64(len(maskedText(msg))) || ev.Recv != int64(2+len(msg)) {
		t.Fatalf("event: %+v", ev)
	}
}

// TestUpgradeRefused: an upgrade to a refused address is refused before
// any dial; limited mode refuses every upgrade; a server that switches to
// another protocol than the one asked is not passed on.
func TestUpgradeRefused(t *testing.T) {
	srv := startEcho(t)
	open := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	if st, _, _ := wsHandshake(t, open, "127.0.0.2:"+port(srv.addr), "/ws"); !strings.HasPrefix(st, "403") {
		t.Errorf("a refused address: %s", st)
	}
	if st, _, _ := wsHandshake(t, open, srv.addr.String(), "/other"); !strings.HasPrefix(st, "502") {
		t.Errorf("another protocol than asked: %s", st)
	}
	before := srv.accepted.Load()
	limited := startProxy(t, Config{Limited: true, Allow: []netip.AddrPort{srv.addr}})
	if st, _, _ := wsHandshake(t, limited, srv.addr.String(), "/ws"); !strings.HasPrefix(st, "403") {
		t.Errorf("limited mode: %s", st)
	}
	if srv.accepted.Load() != before {
		t.Fatal("limited mode reached the server")
	}
	waitEvents(t, limited, 1)
	if ev := limited.Events()[0]; ev.Verdict != "refused" || !strings.Contains(ev.Reason, "upgraded connection (websocket)") {
		t.Fatalf("limited mode event: %+v", ev)
	}
}
