package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
)

// BenchmarkNewConnection is one request on a new connection to a loopback
// server, direct and through the proxy (a plain request and a CONNECT
// tunnel), the way a command's client makes it; the difference is what
// the proxy adds per connection in this process (BENCHMARKS.md §31).
func BenchmarkNewConnection(b *testing.B) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	defer srv.Close()
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	px, err := Start(Config{Allow: []netip.AddrPort{addr}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer px.Close()
	get := "GET /small HTTP/1.1\r\nHost: " + addr.String() + "\r\nConnection: close\r\n\r\n"
	one := func(b *testing.B, network, at, head string, connect bool) {
		c, err := net.Dial(network, at)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		if connect {
			io.WriteString(c, "CONNECT "+addr.String()+" HTTP/1.1\r\n\r\n")
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("CONNECT: %v %v", resp, err)
			}
		}
		io.WriteString(c, head)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			one(b, "tcp4", addr.String(), get, false)
		}
	})
	b.Run("plain", func(b *testing.B) {
		abs := "GET http://" + addr.String() + "/small HTTP/1.1\r\nHost: " + addr.String() + "\r\nConnection: close\r\n\r\n"
		for b.Loop() {
			one(b, "unix", px.Socket(), abs, false)
		}
	})
	b.Run("connect", func(b *testing.B) {
		for b.Loop() {
			one(b, "unix", px.Socket(), get, true)
		}
	})
}
