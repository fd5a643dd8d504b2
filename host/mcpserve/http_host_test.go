package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// TestReboundHostIsMCPGosRule: our Host check refuses exactly what
// mcp-go's DNS rebinding protection would (asked directly, with the same
// local address and Host), so moving the check in front of it changed
// which connections close, not which hosts pass.
func TestReboundHostIsMCPGosRule(t *testing.T) {
	mcpHTTP := server.NewStreamableHTTPServer(server.NewMCPServer("t", "1"))
	locals := []string{"127.0.0.1:7777", "127.3.2.1:7777", "[::1]:7777", "[::ffff:127.0.0.1]:7777", "192.0.2.1:7777", "[2001:db8::1]:7777", "[::]:7777"}
	hosts := []string{"127.0.0.1", "127.0.0.1:7777", "127.1.2.3:80", "localhost", "LocalHost:7777", "localhost:", "[::1]", "[::1]:7777",
		"::1", "[::ffff:127.0.0.1]:80", "[::1%lo]:80", "[localhost]", "[localhost]:80", "localhost.", "evil.example", "evil.example:7777",
		"localhost.evil.example", "127.0.0.1.nip.io:80", "0.0.0.0:7777", "[::]:80", "[2001:db8::1]:7777", "192.0.2.1", ""}
	refused := 0
	for _, local := range locals {
		addr := net.TCPAddrFromAddrPort(netip.MustParseAddrPort(local))
		for _, host := range hosts {
			req := httptest.NewRequest(http.MethodPost, EndpointPath, strings.NewReader("not json"))
			req.Host = host
			req.Header.Set("Content-Type", "application/json")
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.Addr(addr)))
			rec := httptest.NewRecorder()
			mcpHTTP.ServeHTTP(rec, req)
			mcpGoRefused := rec.Code == http.StatusForbidden && strings.Contains(rec.Body.String(), "invalid Host header")
			if got := reboundHost(req); got != mcpGoRefused {
				t.Errorf("local %s, Host %q: reboundHost %v, mcp-go refuses %v (HTTP %d %s)", local, host, got, mcpGoRefused, rec.Code, rec.Body)
			}
			if mcpGoRefused {
				refused++
			}
		}
	}
	if refused == 0 {
		t.Fatal("mcp-go refused no Host at all: the comparison shows nothing")
	}
}

// TestHTTPLoopbackHostsKeepTheirConnection: on an IPv4 and an IPv6
// loopback endpoint, every loopback form of Host (a name, an address,
// with or without the port) is served and its connection carries a
// second request; a foreign Host is refused and its connection closed.
func TestHTTPLoopbackHostsKeepTheirConnection(t *testing.T) {
	for _, listen := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(listen, func(t *testing.T) {
			if ln, err := net.Listen("tcp", listen); err != nil {
				t.Skipf("no %s here: %v", listen, err)
			} else {
				ln.Close()
			}
			s := serve(t, serveOpts{addr: listen})
			u, err := url.Parse(s.URL)
			if err != nil {
				t.Fatal(err)
			}
			port := u.Port()
			for _, host := range []string{u.Host, "localhost:" + port, "LOCALHOST", "127.0.0.1", "127.0.0.1:" + port,
				"[::1]", "[::1]:" + port, "127.9.9.9:" + port, "[::ffff:127.0.0.1]:" + port} {
				conn, br := rawConn(t, s)
				for i := range 2 {
					if code := initialize(t, conn, br, host); code != http.StatusOK {
						t.Fatalf("Host %q, request %d on one connection: HTTP %d, want 200", host, i+1, code)
					}
				}
			}
			for _, host := range []string{"evil.example", "evil.example:" + port, "localhost.evil.example:" + port} {
				conn, br := rawConn(t, s)
				writeInitialize(conn, host)
				readToClose(t, br, http.StatusForbidden)
			}
		})
	}
}

// writeInitialize sends an MCP initialize with the right token and Host.
func writeInitialize(conn net.Conn, host string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}}})
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", EndpointPath, host, testToken, len(body), body)
}

// initialize sends an initialize on conn and reads its whole answer: the
// status, the connection ready for another request.
func initialize(t *testing.T, conn net.Conn, br *bufio.Reader, host string) int {
	t.Helper()
	writeInitialize(conn, host)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("Host %q: %v", host, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		t.Fatalf("Host %q: HTTP %d says Connection: close", host, resp.StatusCode)
	}
	return resp.StatusCode
}
