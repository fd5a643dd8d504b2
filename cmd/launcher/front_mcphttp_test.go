package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/shared/hostv1"
)

// TestMCPServeHTTPIsTheFrontEnds: with a host of the same options
// running, `mcp serve --http` is relayed to the host by the small front
// end as by the full CLI: the same printed lines, and a real mcp-go
// client over HTTP on loopback gets the same tools and call results
// (one allowed by --approve, one denied), the endpoint's checks (token,
// Origin with --allow-origin, rebinding Host, --max-request-kib) the same
// status codes, and SIGINT or SIGTERM the same quiet exit 0; also with the full host
// binary replaced by a stub that must not run. What the full CLI refuses
// or would start a host for reaches it.
func TestMCPServeHTTPIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	r.startHost()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("operator-token-0123456789\nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"--approve", "allow:terminal", "mcp", "serve", "--http", "127.0.0.1:0", "--principal", "alice", "--allow-origin", "https://app.example"},
		{"mcp", "serve", "--max-request-kib", "1", "--http=localhost:0", "--token-file", tokenFile, "--max-concurrent", "4"},
	}
	// Each case ends at another of the two signals.
	signals := []os.Signal{os.Interrupt, syscall.SIGTERM}
	var fronts []string
	for i, args := range cases {
		args = append([]string{"--state", r.state}, args...)
		l, h := r.mcpHTTP("demiurge", signals[i], args...), r.mcpHTTP(HostBinary, signals[i], args...)
		if l != h {
			t.Errorf("%q: the launcher and the host differ\n%s", args, firstDiff(l, h))
		}
		// A signal ends the serving quietly: exit 0, nothing said but
		// the URL (and the token made).
		if quiet := "exit 0\n--- stdout\n--- stderr\ndemiurge mcp serve: URL\n"; !strings.HasPrefix(l, quiet) ||
			!strings.HasPrefix(strings.TrimPrefix(strings.TrimPrefix(l, quiet), "bearer token: TOKEN\n"), "--- seen\n") {
			t.Errorf("%q did not end quietly at %v:\n%s", args, signals[i], l)
		}
		fronts = append(fronts, l)
	}
	for _, want := range []string{"one two three", "approved", "401 a wrong token", "403 a foreign Origin", "bearer token: TOKEN",
		"404 an allowed Origin", "403 a rebinding Host", `principals ["alice"]`, "after a 401 the connection is closed"} {
		if !strings.Contains(fronts[0], want) {
			t.Fatalf("the first case says no %q:\n%s", want, fronts[0])
		}
	}
	if !strings.Contains(fronts[1], "413 a body over --max-request-kib") || strings.Contains(fronts[1], "bearer token") ||
		!strings.Contains(fronts[1], "terminal: error") || !strings.Contains(fronts[1], "403 an allowed Origin") {
		t.Fatalf("the second case:\n%s", fronts[1])
	}

	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	for i, args := range cases {
		if got := r.mcpHTTP("demiurge", signals[i], append([]string{"--state", r.state}, args...)...); got != fronts[i] {
			t.Errorf("%q with the full host stubbed: %s", args, firstDiff(got, fronts[i]))
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("mcp serve --http ran the full host: %s", b)
	}
	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, []byte("too short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A token file others may read is refused by the full CLI, so the
	// front end hands it over too (TestTokenFileMustBeTheOperatorsOwnSecret).
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.WriteFile(shared, []byte("operator-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"mcp", "serve", "--http", "0.0.0.0:0"}},
		{nil, []string{"mcp", "serve", "--http", "0.0.0.0:0", "--listen-public"}},
		{nil, []string{"mcp", "serve", "--token-file", tokenFile}},
		{nil, []string{"mcp", "serve", "--http", "127.0.0.1:0", "--token-file", short}},
		{nil, []string{"mcp", "serve", "--http", "127.0.0.1:0", "--token-file", shared}},
		{nil, []string{"mcp", "serve", "--http", "127.0.0.1:0", "--token-file", filepath.Join(t.TempDir(), "none")}},
		{nil, []string{"mcp", "serve", "--http", "127.0.0.1:0", "--allow-origin", "https://a,https://b"}},
		{nil, []string{"mcp", "serve", "--http", "127.0.0.1:0", "--allow-origin", " https://app.example"}},
		{nil, []string{"--workspace", t.TempDir(), "mcp", "serve", "--http", "127.0.0.1:0"}},
		{[]string{"DEMIURGE_HOST=off"}, []string{"mcp", "serve", "--http", "127.0.0.1:0"}},
	} {
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
	r.reachesFullHost(marker, nil, "--state", filepath.Join(t.TempDir(), "other"), "mcp", "serve", "--http", "127.0.0.1:0")
}

// TestFrontLinksNoMCPServer: the front end's `mcp serve --http` links
// the bind check the full CLI uses (host/mcpserve/mcpbind), not the MCP
// server (host/mcpserve, mcp-go): the host serves the endpoint.
func TestFrontLinksNoMCPServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "demiurge.dev/cmd/front").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "demiurge.dev/host/mcpserve/mcpbind") {
		t.Error("go list -deps does not list demiurge.dev/host/mcpserve/mcpbind; is the check looking at the right package?")
	}
	for _, dep := range deps {
		if dep == "demiurge.dev/host/mcpserve" || strings.HasPrefix(dep, "github.com/mark3labs/mcp-go") {
			t.Errorf("the front end depends on %s; the host serves MCP", dep)
		}
	}
}

var (
	servedURL   = regexp.MustCompile(`http://(127\.0\.0\.1|\[::1\]):\d+/mcp`)
	bearerToken = regexp.MustCompile(`bearer token: [0-9a-f]{48}`)
)

// mcpHTTP runs `mcp serve --http` through binary with args, drives it
// with a real MCP client and raw requests, ends it with SIGINT and
// returns what was seen, the port and a made token blanked.
func (r *rig) mcpHTTP(binary string, sig os.Signal, args ...string) string {
	r.t.Helper()
	cmd := r.command(binary, nil, args...)
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var u, token string
	for deadline := time.Now().Add(60 * time.Second); u == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("%s %q printed no URL: %s", binary, args, stderr.String())
		}
		u = servedURL.FindString(stderr.String())
		if !slices.Contains(args, "--token-file") && u != "" {
			if token = bearerToken.FindString(stderr.String()); token == "" {
				u = "" // the token's line comes next
			}
		}
	}
	token = strings.TrimPrefix(token, "bearer token: ")
	if token == "" {
		token = "operator-token-0123456789"
	}
	var seen strings.Builder
	fmt.Fprintf(&seen, "%s\n", r.mcpClientHTTP(u, token))
	for _, c := range []struct {
		what, token, origin, host, body string
	}{
		{"a wrong token", "not-the-token-0123456789", "", "", ""},
		{"a foreign Origin", token, "https://evil.example", "", ""},
		{"an allowed Origin", token, "https://app.example", "", ""},
		{"a loopback Origin", token, "http://localhost:3000", "", ""},
		{"a rebinding Host", token, "", "evil.example:80", ""},
		{"a body over --max-request-kib", token, "", "", strings.Repeat(" ", 2<<10)},
	} {
		fmt.Fprintf(&seen, "%d %s\n", r.post(u, c.token, c.origin, c.host, c.body), c.what)
	}
	fmt.Fprintf(&seen, "after a 401 the connection is %s\n", r.refusedConn(u))
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		r.t.Fatalf("%s %q did not end within 30s of %v", binary, args, sig)
	}
	res := r.ended(cmd, err, &stdout, &stderr)
	res.stderr = bearerToken.ReplaceAllString(servedURL.ReplaceAllString(res.stderr, "URL"), "bearer token: TOKEN")
	return res.String() + "--- seen\n" + seen.String()
}

// mcpClientHTTP is a real mcp-go client of the endpoint at u: it lists
// the tools and makes three calls, and says what it got.
func (r *rig) mcpClientHTTP(u, token string) string {
	r.t.Helper()
	tr, err := transport.NewStreamableHTTP(u, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		r.t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		r.t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "front-http-test", Version: "1"}
	got, err := c.Initialize(ctx, init)
	if err != nil {
		r.t.Fatalf("initialize %s: %v", u, err)
	}
	var seen strings.Builder
	fmt.Fprintf(&seen, "server %s\n", got.ServerInfo.Name)
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		r.t.Fatalf("tools/list %s: %v", u, err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	fmt.Fprintf(&seen, "tools %s\n", strings.Join(names, " "))
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "words.txt"}},
		{"terminal", map[string]any{"command": "echo approved"}},
		{"no_such_tool", nil},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = call.name, call.args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			fmt.Fprintf(&seen, "%s: protocol error %v\n", call.name, err)
			continue
		}
		var text []string
		for _, content := range res.Content {
			if tc, ok := content.(mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		state := "ok"
		if res.IsError {
			state = "error"
		}
		fmt.Fprintf(&seen, "%s: %s %.300q\n", call.name, state, strings.Join(text, "\n"))
	}
	// The session's principal (--principal), as the host counts it once it has called.
	hc, err := hostclient.Dial(ctx, r.state, hostclient.DialOptions{Config: hostclient.AnyConfig})
	if err != nil {
		r.t.Fatalf("dial the host: %v", err)
	}
	st, err := hc.Status(ctx, &hostv1.StatusRequest{})
	hc.Close()
	if err != nil {
		r.t.Fatalf("host status: %v", err)
	}
	fmt.Fprintf(&seen, "principals %q\n", st.Principals)
	return seen.String()
}

// refusedConn sends a request without a token on a raw TCP connection
// to the endpoint at u and says whether the relay then closes it (the
// host's 401 says Connection: close) or keeps it open past 10 s.
func (r *rig) refusedConn(u string) string {
	r.t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		r.t.Fatal(err)
	}
	c, err := net.Dial("tcp", pu.Host)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", pu.Path, pu.Host)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		r.t.Fatalf("GET %s without a token: %v", u, err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		return fmt.Sprintf("kept open after %d (%v)", res.StatusCode, err)
	}
	return "closed"
}

// post sends a ping to the endpoint at u as a raw request, with the
// given token, Origin, Host and body (a ping when ""), and returns the
// status code.
func (r *rig) post(u, token, origin, host, body string) int {
	r.t.Helper()
	if body == "" {
		body = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	} else {
		body = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + body + `"}}`
	}
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if host != "" {
		req.Host = host
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("POST %s: %v", u, err)
	}
	res.Body.Close()
	return res.StatusCode
}
