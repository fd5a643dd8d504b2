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

// TestHeldStreamsNeverKeepACallOut: a client with the token opens more
// standalone GET streams (one per session it initializes) than
// --max-concurrent and holds them (those beyond it are answered 503);
// another request is still answered.
// A GET stream without a session, which would make a session of its own
// for as long as it is held, is refused.
func TestHeldStreamsNeverKeepACallOut(t *testing.T) {
	bin, plugins := demiurgeHost(t)
	args, _ := serveArgs(t, plugins)
	u, token := startHTTPServe(t, bin, args, "")
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 100}
	cl := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	do := func(method, session, body string, d time.Duration) (*http.Response, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		req, _ := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		res, err := cl.Do(req)
		if err != nil || method != http.MethodGet {
			defer cancel()
		} else {
			t.Cleanup(cancel)
		}
		return res, err
	}
	const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"streams","version":"1"}}}`
	initialize := func() string {
		res, err := do(http.MethodPost, "", initBody, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("initialize: %d", res.StatusCode)
		}
		return res.Header.Get("Mcp-Session-Id")
	}
	held := 0
	for i := range 40 {
		s := initialize()
		res, err := do(http.MethodGet, s, "", time.Hour)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		t.Cleanup(func() { res.Body.Close() })
		if res.StatusCode == 200 {
			held++
		} else if res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("stream %d: %d", i, res.StatusCode)
		}
	}
	if held < 32 {
		t.Fatalf("%d streams held, want --max-concurrent's 32", held)
	}
	s := initialize()
	res, err := do(http.MethodPost, s, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("a ping while 40 streams are held: %d", res.StatusCode)
	}
	res, err = do(http.MethodGet, "", "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == 200 {
		t.Fatal("a GET stream without a session was served")
	}
}
