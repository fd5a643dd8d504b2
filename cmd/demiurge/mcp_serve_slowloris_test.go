package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestIdleConnectionsNeverKeepATokenHolderOut: whoever can reach `mcp
// serve --http` (anyone on the machine; with --listen-public, the
// network) opens hundreds of connections that never finish a request
// head (some silent, some mid-header) and keeps them open. A client with
// the token is still served at once, in process and through the host.
func TestIdleConnectionsNeverKeepATokenHolderOut(t *testing.T) {
	for _, mode := range []string{"in-process", "host"} {
		t.Run(mode, func(t *testing.T) {
			var u, token string
			if mode == "host" {
				e := newHostEnv(t)
				base := []string{"--state", e.state, "--plugin-dir", e.builtin, "--workspace", e.ws}
				u, token, _ = startHTTPServeEnv(t, e.bin, []string{"HOME=" + e.home, "DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=2m"}, base, "")
			} else {
				bin, plugins := demiurgeHost(t)
				args, _ := serveArgs(t, plugins)
				u, token = startHTTPServe(t, bin, args, "")
			}
			pu, _ := url.Parse(u)
			if !pingServed(t, u, token, 20*time.Second) {
				t.Fatal("not served before the attack")
			}
			var idle []net.Conn
			t.Cleanup(func() {
				for _, c := range idle {
					c.Close()
				}
			})
			for i := range 400 {
				c, err := net.DialTimeout("tcp", pu.Host, 5*time.Second)
				if err != nil {
					t.Fatalf("dial %d: %v", i, err)
				}
				if i%2 == 1 {
					fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nX-Slow: ", pu.Host)
				}
				idle = append(idle, c)
			}
			time.Sleep(500 * time.Millisecond)
			for round := range 3 {
				if !pingServed(t, u, token, 3*time.Second) {
					t.Fatalf("round %d: a client with the token was not served within 3s while 400 idle connections were open", round)
				}
			}
		})
	}
}

// pingServed: a ping with the token is answered 200 within d.
func pingServed(t *testing.T, u, token string, d time.Duration) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		tr := &http.Transport{DisableKeepAlives: true}
		res, err := (&http.Client{Transport: tr}).Do(req)
		if err == nil {
			line, _ := bufio.NewReader(res.Body).ReadString('\n')
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return true
			}
			t.Logf("status %d: %s", res.StatusCode, line)
		}
		if ctx.Err() != nil {
			t.Logf("ping: %v", err)
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
