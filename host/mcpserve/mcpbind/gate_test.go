package mcpbind

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

const testToken = "0123456789abcdef-token"

// gated serves ln's gate with a server that answers each request "served"
// and holds the connection until its client closes it.
func gated(t *testing.T, admitted int) string {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Gate(tcp, testToken, admitted)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				body, _ := io.ReadAll(req.Body)
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\nserved%s", 6+len(body), body)
				_, _ = io.Copy(io.Discard, br)
			}()
		}
	}()
	return tcp.Addr().String()
}

func dialT(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// request sends one request on c (with the token when token is set) and
// reads the answer's status and body within d.
func request(c net.Conn, token bool, body string, d time.Duration) (int, string, error) {
	auth := ""
	if token {
		auth = "Authorization: bearer " + testToken + "\r\n"
	}
	if _, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\n%sContent-Length: %d\r\n\r\n%s", auth, len(body), body); err != nil {
		return 0, "", err
	}
	_ = c.SetReadDeadline(time.Now().Add(d))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, "", err
	}
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), nil
}

// TestIdleConnectionsNeverHoldTheTokensPlaces: connections that never
// send a request head (more than MaxPending of them) delay no client with
// the token; the head and the body the gate read reach the server whole.
func TestIdleConnectionsNeverHoldTheTokensPlaces(t *testing.T) {
	addr := gated(t, 8)
	var idle []net.Conn
	for range MaxPending + 20 {
		c := dialT(t, addr)
		fmt.Fprint(c, "POST /mcp HTTP/1.1\r\nX-Slow: ")
		idle = append(idle, c)
	}
	// The oldest beyond MaxPending are closed: pending connections cost
	// at most MaxPending descriptors. The gate closes them as it accepts
	// the newer ones, which takes a while on a loaded machine: looked at
	// until 20 are seen closed or half the head timeout has passed (at
	// the timeout every one of them is closed, evicted or not).
	closed := 0
	seen := make([]bool, len(idle))
	for deadline := time.Now().Add(HeadTimeout / 2); closed < 20 && time.Now().Before(deadline); {
		for i, c := range idle {
			if seen[i] {
				continue
			}
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
			if _, err := c.Read(make([]byte, 1)); err == io.EOF {
				seen[i] = true
				closed++
			}
		}
	}
	if closed < 20 {
		t.Fatalf("%d of %d idle connections closed, want at least 20", closed, len(idle))
	}
	for i := range 5 {
		c := dialT(t, addr)
		code, body, err := request(c, true, "payload", 3*time.Second)
		if err != nil || code != 200 || body != "servedpayload" {
			t.Fatalf("client %d with the token: %d %q %v", i, code, body, err)
		}
		c.Close()
	}
}

// TestTheTokensPlacesAreCappedNeverQueued: past the cap a connection with
// the token is answered 503 at once (never left waiting), a place comes
// back when a connection closes, and a head without the token goes on
// uncounted for the server to refuse.
func TestTheTokensPlacesAreCappedNeverQueued(t *testing.T) {
	addr := gated(t, 2)
	var held []net.Conn
	for i := range 2 {
		c := dialT(t, addr)
		if code, _, err := request(c, true, "", 3*time.Second); err != nil || code != 200 {
			t.Fatalf("place %d: %d %v", i, code, err)
		}
		held = append(held, c)
	}
	extra := dialT(t, addr)
	code, body, err := request(extra, true, "", 3*time.Second)
	if err != nil || code != 503 || !strings.Contains(body, "too many connections") {
		t.Fatalf("beyond the cap: %d %q %v", code, body, err)
	}
	if code, _, err := request(dialT(t, addr), false, "", 3*time.Second); err != nil || code != 200 {
		t.Fatalf("a head without the token was not passed on: %d %v", code, err)
	}
	held[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _, err := request(dialT(t, addr), true, "", 3*time.Second)
		if err == nil && code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no place came back: %d %v", code, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
