package egress

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// handOver sends fds with first over the proxy's socket, as a sandbox
// helper does with its namespace's listener, and returns the control
// connection and what the proxy answered (nil when it closed without a
// byte).
func handOver(t *testing.T, px *Proxy, first byte, fds ...int) (*net.UnixConn, []byte) {
	t.Helper()
	c, err := net.Dial("unix", px.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	uc := c.(*net.UnixConn)
	if _, _, err := uc.WriteMsgUnix([]byte{first}, syscall.UnixRights(fds...), nil); err != nil {
		t.Fatal(err)
	}
	if first != 0 || len(fds) != 1 {
		uc.CloseWrite() // nothing more comes: do not wait for the rest of a request
	}
	uc.SetReadDeadline(time.Now().Add(3 * time.Second))
	var b [64]byte
	n, _ := uc.Read(b[:])
	uc.SetReadDeadline(time.Time{})
	if n == 0 {
		return uc, nil
	}
	return uc, b[:n]
}

// listenerFile is a listener on loopback as a file to hand over; once
// handed over, the caller closes both (the proxy holds its own copy).
func listenerFile(t *testing.T) (*net.TCPListener, *os.File) {
	t.Helper()
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close(); f.Close() })
	return ln, f
}

// TestHandedOverListenerIsServed: a listener handed over on the proxy's
// socket (what the sandbox helper does from inside a command's network
// namespace) is served like the socket itself: the URL policy applies
// to what comes in on it, over HTTP and SOCKS5; when the control
// connection ends (the helper is gone), and when the proxy closes, the
// listener stops.
func TestHandedOverListenerIsServed(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body("served"))
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	ln, f := listenerFile(t)
	ctl, ack := handOver(t, px, 0, int(f.Fd()))
	if string(ack) != "\x00" {
		t.Fatalf("the proxy answered %q, want a zero byte", ack)
	}
	addr := ln.Addr().String()
	ln.Close() // the proxy holds its own copy
	f.Close()
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL("http://" + addr)), DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := hc.Get("http://" + srv.addr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "served" {
		t.Fatalf("through the handed-over listener: %q", b)
	}
	resp, err = hc.Get("http://127.0.0.2:" + port(srv.addr) + "/")
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a refused address through the handed-over listener: %v %v", resp, err)
	}
	resp.Body.Close()
	ctl.Close()
	waitRefused(t, addr)

	// A second listener ends with the proxy.
	ln2, f2 := listenerFile(t)
	if _, ack := handOver(t, px, 0, int(f2.Fd())); string(ack) != "\x00" {
		t.Fatalf("second listener: %q", ack)
	}
	addr2 := ln2.Addr().String()
	ln2.Close()
	f2.Close()
	px.Close()
	waitRefused(t, addr2)
}

func waitRefused(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s still accepts after its helper or proxy ended", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHandOverBadInput: what is not one listening TCP socket sent with a
// zero byte is not adopted, and every descriptor received is closed.
func TestHandOverBadInput(t *testing.T) {
	px := startProxy(t, Config{})
	conn, err := net.Dial("tcp4", startServer(t, "tcp4", "127.0.0.1:0", body("x")).addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cf, _ := conn.(*net.TCPConn).File()
	defer cf.Close()
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	_, l1 := listenerFile(t)
	_, l2 := listenerFile(t)
	lfd, lfd2 := int(l1.Fd()), int(l2.Fd())
	time.Sleep(50 * time.Millisecond)
	before := openFDs(t)
	for _, c := range []struct {
		name  string
		first byte
		fds   []int
	}{
		{"a connected socket", 0, []int{int(cf.Fd())}},
		{"a file", 0, []int{int(devnull.Fd())}},
		{"two listeners", 0, []int{lfd, lfd2}},
		{"a listener after a non-zero byte", 'G', []int{lfd}},
		{"a zero byte alone", 0, nil},
	} {
		ctl, ack := handOver(t, px, c.first, c.fds...)
		ctl.Close()
		if string(ack) == "\x00" || (ack != nil && !strings.HasPrefix(string(ack), "HTTP/1.1 400")) {
			t.Errorf("%s: the proxy answered %q", c.name, ack)
		}
	}
	time.Sleep(100 * time.Millisecond)
	// What the proxy received must all be closed again.
	if after := openFDs(t); after > before {
		t.Fatalf("descriptors: %d before, %d after (the proxy kept what it refused)", before, after)
	}
	px.mu.Lock()
	n := len(px.listeners)
	px.mu.Unlock()
	if n != 0 {
		t.Fatalf("the proxy adopted %d listeners", n)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(es)
}

// TestHandedOverListenersAreBounded: a proxy serves at most maxListeners
// handed-over listeners at once (one a sandboxed command); the next is
// refused without an answer, and one ending frees a place.
func TestHandedOverListenersAreBounded(t *testing.T) {
	px := startProxy(t, Config{})
	var ctls []*net.UnixConn
	for i := range maxListeners {
		_, f := listenerFile(t)
		ctl, ack := handOver(t, px, 0, int(f.Fd()))
		if string(ack) != "\x00" {
			t.Fatalf("listener %d of %d: ack %q", i+1, maxListeners, ack)
		}
		ctls = append(ctls, ctl)
	}
	_, f := listenerFile(t)
	if _, ack := handOver(t, px, 0, int(f.Fd())); len(ack) != 0 {
		t.Fatalf("listener %d: ack %q, want none (refused)", maxListeners+1, ack)
	}
	ctls[0].Close()
	_, f = listenerFile(t)
	var ack []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, ack = handOver(t, px, 0, int(f.Fd())); string(ack) == "\x00" {
			return
		}
	}
	t.Fatalf("after one ended: ack %q, want a place", ack)
}
