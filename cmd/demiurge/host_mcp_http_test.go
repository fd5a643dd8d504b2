package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestHostMCPServeHTTPFrontEnds: two `mcp serve --http` processes (one
// under --principal x) and an `mcp serve` over stdio, on one state, each
// with a real mcp-go client, all list and call through one long-lived
// host. The endpoint's checks hold through the host (the token, the DNS
// rebinding check on the connection's real address), and one --http
// front end ending (SIGINT) ends its sessions and its port, and nobody
// else's.
func TestHostMCPServeHTTPFrontEnds(t *testing.T) {
	e := newHostEnv(t)
	base := []string{"--state", e.state, "--plugin-dir", e.builtin, "--workspace", e.ws, "--approve", "allow:stream"}
	env := []string{"HOME=" + e.home, "DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=2m"}
	httpClient := func(u, token string) *client.Client {
		tr, err := transport.NewStreamableHTTP(u, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
		init.Params.ClientInfo = mcp.Implementation{Name: "host-http-test", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatal(err)
		}
		return c
	}
	uA, tokA, cmdA := startHTTPServeEnv(t, e.bin, env, base, "")
	uB, tokB, _ := startHTTPServeEnv(t, e.bin, env, base, "", "--principal", "x")
	a, b := httpClient(uA, tokA), httpClient(uB, tokB)
	s, err := client.NewStdioMCPClient(e.bin, env, append(base, "mcp", "serve")...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "host-http-test", Version: "1"}
	if _, err := s.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	all := []*client.Client{a, b, s}
	for round := range 3 {
		for i, c := range all {
			lctx, lcancel := context.WithTimeout(context.Background(), 30*time.Second)
			tools, err := c.ListTools(lctx, mcp.ListToolsRequest{})
			lcancel()
			if err != nil || len(tools.Tools) < 5 {
				t.Fatalf("round %d client %d list: %v", round, i, err)
			}
			if out, isErr := callTool(t, c, "read_file", map[string]any{"path": "a.txt"}); isErr || !strings.Contains(out, "from the workspace") {
				t.Fatalf("round %d client %d: %q", round, i, out)
			}
		}
	}
	// One host serves them all: three front ends, three sessions, two
	// principals; the --http processes started no host of their own.
	hostPID := e.hostPID(t)
	if hostPID == cmdA.Process.Pid {
		t.Fatal("the --http front end is the host")
	}
	status := func() (fe, ses int, principals []string) {
		t.Helper()
		out, stderr, err := e.runHost(t, "host", "status", "--json")
		if err != nil {
			t.Fatalf("host status: %v\n%s", err, stderr)
		}
		var st struct {
			FrontEnds  int      `json:"front_ends"`
			Sessions   int      `json:"sessions"`
			Principals []string `json:"principals"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status: %v\n%s", err, out)
		}
		return st.FrontEnds, st.Sessions, st.Principals
	}
	if fe, ses, pr := status(); fe != 3 || ses != 3 || len(pr) != 2 || !strings.Contains(strings.Join(pr, ","), "x") {
		t.Fatalf("status: %d front ends, %d sessions, principals %v", fe, ses, pr)
	}
	// The endpoint's checks, through the host: a wrong token is 401; a
	// loopback connection with a foreign Host is 403 (DNS rebinding),
	// which needs the connection's real local address in the host.
	post := func(u, token, host string) int {
		req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", u, err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(uA, "not-the-token-0123456789", ""); code != http.StatusUnauthorized {
		t.Fatalf("a wrong token through the host: %d", code)
	}
	if code := post(uA, tokA, "evil.example:80"); code != http.StatusForbidden {
		t.Fatalf("a rebinding Host through the host: %d", code)
	}
	if code := post(uA, tokB, ""); code != http.StatusUnauthorized {
		t.Fatalf("B's token on A's endpoint: %d", code)
	}
	// A's front end ends: its port closes, its session ends in the host,
	// B and the stdio client go on.
	cmdA.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmdA.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcp serve --http after SIGINT: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("mcp serve --http did not end within 20s of SIGINT")
	}
	pu, _ := url.Parse(uA)
	if c, err := net.DialTimeout("tcp", pu.Host, 2*time.Second); err == nil {
		c.Close()
		t.Fatal("A's port still answers after it ended")
	}
	for _, c := range []*client.Client{b, s} {
		if out, isErr := callTool(t, c, "read_file", map[string]any{"path": "a.txt"}); isErr || !strings.Contains(out, "from the workspace") {
			t.Fatalf("after A left: %q", out)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		fe, ses, _ := status()
		if fe == 2 && ses == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after A left: %d front ends, %d sessions", fe, ses)
		}
	}
	if e.hostPID(t) != hostPID {
		t.Fatal("the host changed")
	}
}
