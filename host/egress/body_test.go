package egress

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pattern is n bytes that differ at every offset a copy could slip by.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// handedOver is the address of a listener handed over to px: through
// it both sides of the proxy are TCP sockets (what splice(2) moves
// between), as for a sandboxed command.
func handedOver(t *testing.T, px *Proxy) string {
	t.Helper()
	ln, f := listenerFile(t)
	if _, ack := handOver(t, px, 0, int(f.Fd())); string(ack) != "\x00" {
		t.Fatalf("hand-over: %q", ack)
	}
	addr := ln.Addr().String()
	ln.Close()
	f.Close()
	return addr
}

// eventAfter waits for the event of the request made after px's first n
// events (it is reported as the handler ends).
func eventAfter(t *testing.T, px *Proxy, n int) Event {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ev := px.Events(); len(ev) > n {
			return ev[n]
		}
	}
	t.Fatal("no event")
	return Event{}
}

// TestLargeBodiesArriveWhole: plain responses of known length (carried
// by splice once the head is read), chunked ones, an upload, and a
// CONNECT tunnel arrive byte for byte (an upload past an interim
// 100 Continue), each counted in its event; a
// body the server cuts short fails the command's read and the event
// says so.
func TestLargeBodiesArriveWhole(t *testing.T) {
	big := pattern(5<<20 + 12345)
	sum := sha256.Sum256(big)
	srv := startServer(t, "tcp4", "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sized":
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big)
		case "/chunked":
			w.Write(big[:1<<20])
			w.(http.Flusher).Flush()
			w.Write(big[1<<20:])
		case "/upload":
			h := sha256.New()
			n, _ := io.Copy(h, r.Body)
			io.WriteString(w, strconv.FormatInt(n, 10)+" "+string(h.Sum(nil)[:4]))
		case "/cut":
			w.Header().Set("Content-Length", strconv.Itoa(len(big)))
			w.Write(big[:1<<20])
			w.(http.Flusher).Flush()
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}
	})
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	addr := handedOver(t, px)
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL("http://" + addr)), DisableKeepAlives: true}, Timeout: 20 * time.Second}
	base := "http://" + srv.addr.String()
	for _, path := range []string{"/sized", "/chunked"} {
		before := len(px.Events())
		resp, err := hc.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || sha256.Sum256(got) != sum {
			t.Fatalf("%s: %d bytes, want %d, same bytes %v (%v)", path, len(got), len(big), bytes.Equal(got, big), err)
		}
		if ev := eventAfter(t, px, before); ev.Recv != int64(len(big)) || ev.Verdict != "allowed" || ev.Reason != "" {
			t.Fatalf("%s: event %+v, want %d bytes received", path, ev, len(big))
		}
	}
	before := len(px.Events())
	// With Expect: 100-continue the server's interim 100 is the proxy's
	// to pass over; the command gets the final answer.
	req, _ := http.NewRequest(http.MethodPost, base+"/upload", bytes.NewReader(big))
	req.Header.Set("Expect", "100-continue")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := strconv.Itoa(len(big)) + " " + string(sum[:4]); string(got) != want {
		t.Fatalf("upload: the server saw %q, want %q", got, want)
	}
	if ev := eventAfter(t, px, before); ev.Sent != int64(len(big)) {
		t.Fatalf("upload: event %+v, want %d bytes sent", ev, len(big))
	}

	before = len(px.Events())
	resp, err = hc.Get(base + "/cut")
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || len(got) >= len(big) {
		t.Fatalf("a body cut short upstream: %d bytes, error %v; want a failed read", len(got), err)
	}
	if ev := eventAfter(t, px, before); !strings.HasPrefix(ev.Reason, "ended by an error") || ev.Recv != 1<<20 {
		t.Fatalf("a body cut short upstream: event %+v", ev)
	}

	// A tunnel carries the same bytes both ways.
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT "+srv.addr.String()+" HTTP/1.1\r\n\r\nGET /sized HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	all, _ := io.ReadAll(c)
	if !bytes.HasSuffix(all, big) {
		t.Fatalf("through a tunnel: %d bytes, the body not at the end", len(all))
	}
}

// TestStalledBodyEndsWithItsEnds: a response body the server stalls in
// the middle of ends upstream too when the command hangs up, and when
// the proxy closes (the server's request ends; nothing waits forever).
func TestStalledBodyEndsWithItsEnds(t *testing.T) {
	ended := make(chan struct{}, 2)
	srv := startServer(t, "tcp4", "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(pattern(1000))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the proxy closed its connection
		ended <- struct{}{}
	})
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	addr := handedOver(t, px)
	get := func() net.Conn {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET http://"+srv.addr.String()+"/ HTTP/1.1\r\nHost: "+srv.addr.String()+"\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	wait := func(what string) {
		select {
		case <-ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the upstream request still runs", what)
		}
	}
	get().Close()
	wait("the command hung up")
	c := get()
	defer c.Close()
	px.Close()
	wait("the proxy closed")
}

// TestEarlyAnswerToAnUpload: a server that answers before reading an
// upload (413) reaches the command, and the request ends (the proxy's
// writer of the body stops at the closed connection; nothing hangs).
func TestEarlyAnswerToAnUpload(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
	})
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	addr := handedOver(t, px)
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL("http://" + addr)), DisableKeepAlives: true}, Timeout: 10 * time.Second}
	start := time.Now()
	resp, err := hc.Post("http://"+srv.addr.String()+"/", "application/octet-stream", bytes.NewReader(pattern(32<<20)))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("the upload took %v (err %v)", d, err)
	}
	done := make(chan struct{})
	go func() { px.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy did not close")
	}
}

// TestHeadAndCloseDelimitedBodies: a HEAD answer's Content-Length names
// a body that never comes (the proxy must not wait for it), and a body
// with no length ends when the server closes: both arrive as the server
// sent them.
func TestHeadAndCloseDelimitedBodies(t *testing.T) {
	body := pattern(70000)
	srv := startServer(t, "tcp4", "127.0.0.1:0", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/head":
			w.Header().Set("Content-Length", "12345")
		case "/over":
			// More than its Content-Length, the rest a moment later.
			c, rw, _ := w.(http.Hijacker).Hijack()
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
			rw.Flush()
			time.Sleep(50 * time.Millisecond)
			rw.WriteString("EXTRA")
			rw.Flush()
			c.Close()
		case "/close":
			c, rw, _ := w.(http.Hijacker).Hijack()
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
			rw.Write(body)
			rw.Flush()
			c.Close()
		}
	})
	px := startProxy(t, Config{Allow: []netip.AddrPort{srv.addr}})
	addr := handedOver(t, px)
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL("http://" + addr)), DisableKeepAlives: true}, Timeout: 5 * time.Second}
	base := "http://" + srv.addr.String()
	resp, err := hc.Head(base + "/head")
	if err != nil {
		t.Fatalf("HEAD through the proxy: %v", err)
	}
	resp.Body.Close()
	if resp.ContentLength != 12345 {
		t.Errorf("HEAD: Content-Length %d, want the server's 12345", resp.ContentLength)
	}
	before := len(px.Events())
	resp, err = hc.Get(base + "/over")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(got) != "hello" {
		t.Fatalf("a server sending past its Content-Length: %q (%v), want hello", got, err)
	}
	if ev := eventAfter(t, px, before); ev.Recv != 5 || ev.Reason != "" {
		t.Fatalf("a server sending past its Content-Length: event %+v, want 5 bytes and no error (the rest not read)", ev)
	}
	resp, err = hc.Get(base + "/close")
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("a close-delimited body: %d bytes of %d, same %v (%v)", len(got), len(body), bytes.Equal(got, body), err)
	}
}
