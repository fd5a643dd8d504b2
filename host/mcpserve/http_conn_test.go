package mcpserve

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"
)

// rawConn is a TCP connection to the endpoint of s, with a deadline no
// test waits past.
func rawConn(t *testing.T, s *served) (net.Conn, *bufio.Reader) {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// readToClose reads one response and then waits for the server to close
// the connection: a read deadline passing instead is the failure.
func readToClose(t *testing.T, br *bufio.Reader, want int) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("HTTP %d, want %d", resp.StatusCode, want)
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the server kept the connection open after HTTP %d", want)
		}
		t.Fatalf("after HTTP %d: %v, want the server's close (EOF)", want, err)
	}
}

// TestHTTPRefusalClosesTheConnection: a refused request (no token, a
// foreign Origin, a foreign Host on loopback) ends its connection, so a
// client that was never let in cannot hold one open.
func TestHTTPRefusalClosesTheConnection(t *testing.T) {
	s := serve(t, serveOpts{})
	for _, c := range []struct {
		name, headers string
		status        int
	}{
		{"no token", "Host: 127.0.0.1\r\n", http.StatusUnauthorized},
		{"foreign origin", "Host: 127.0.0.1\r\nOrigin: https://evil.example\r\nAuthorization: Bearer " + testToken + "\r\n", http.StatusForbidden},
		// mcp-go's own 403 for this one keeps the connection: ours closes it.
		{"rebound host", "Host: evil.example:7777\r\nAuthorization: Bearer " + testToken + "\r\n", http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, br := rawConn(t, s)
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nAccept: text/event-stream\r\n%s\r\n", EndpointPath, c.headers)
			readToClose(t, br, c.status)
		})
	}
}

// TestHTTPIdleConnectionIsClosed: a keep-alive connection that carries
// no request for IdleTimeout is closed by the server.
func TestHTTPIdleConnectionIsClosed(t *testing.T) {
	s := serve(t, serveOpts{http: HTTPOptions{IdleTimeout: 300 * time.Millisecond}})
	conn, br := rawConn(t, s)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}}})
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", EndpointPath, testToken, len(body), body)
	readToClose(t, br, http.StatusOK)
}
