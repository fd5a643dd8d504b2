package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHTTPRefusesBadRequests: every attack is refused before it reaches
// the MCP server, with the status that says why.
func TestHTTPRefusesBadRequests(t *testing.T) {
	s := serve(t, serveOpts{http: HTTPOptions{MaxRequestBytes: 64 << 10}})
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}}})
	big := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`), bytes.Repeat([]byte("a"), 128<<10)...)
	big = append(big, `"}}`...)
	cases := []struct {
		name   string
		token  string
		header map[string]string
		body   []byte
		status int
	}{
		{"no token", "", nil, init, http.StatusUnauthorized},
		{"wrong token", "test-token-0123456789abcdeX", nil, init, http.StatusUnauthorized},
		{"token prefix", testToken[:10], nil, init, http.StatusUnauthorized},
		{"token with more", testToken + "x", nil, init, http.StatusUnauthorized},
		{"basic auth", "", map[string]string{"Authorization": "Basic " + testToken}, init, http.StatusUnauthorized},
		{"token without a scheme", "", map[string]string{"Authorization": testToken}, init, http.StatusUnauthorized},
		{"token after two spaces", "", map[string]string{"Authorization": "Bearer  " + testToken}, init, http.StatusUnauthorized},
		{"lower-case scheme", "", map[string]string{"Authorization": "bearer " + testToken}, init, http.StatusOK},
		{"foreign origin", testToken, map[string]string{"Origin": "https://evil.example"}, init, http.StatusForbidden},
		{"null origin", testToken, map[string]string{"Origin": "null"}, init, http.StatusForbidden},
		{"file origin", testToken, map[string]string{"Origin": "file://"}, init, http.StatusForbidden},
		{"lookalike origin", testToken, map[string]string{"Origin": "http://127.0.0.1.evil.example"}, init, http.StatusForbidden},
		{"rebound host", testToken, map[string]string{"Host": "evil.example:7777"}, init, http.StatusForbidden},
		{"oversized", testToken, nil, big, http.StatusRequestEntityTooLarge},
		{"garbage", testToken, nil, []byte("\x00\xffnot json{"), http.StatusBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &rawClient{t: t, url: s.URL, token: c.token, header: http.Header{}}
			for k, v := range c.header {
				r.header.Set(k, v)
			}
			resp, body := r.postHost(c.body, c.header["Host"])
			if resp.StatusCode != c.status {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if c.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("no Bearer challenge: %v", resp.Header)
			}
		})
	}
	// The token only counts in the Authorization header: in the URL's
	// query (where a browser, a log or a Referer carries it), in a cookie
	// or in another header it is no token.
	for name, h := range map[string]http.Header{
		"query":  {},
		"cookie": {"Cookie": {"token=" + testToken}},
		"header": {"X-Api-Key": {testToken}, "Proxy-Authorization": {"Bearer " + testToken}},
	} {
		r := &rawClient{t: t, url: s.URL + "?access_token=" + testToken + "&token=" + testToken, header: h}
		if resp, body := r.post(init); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("the token in the %s: HTTP %d %s", name, resp.StatusCode, body)
		}
	}
	// A body without a length (chunked) is cut at the bound as it is read.
	chunked := initialized(t, s)
	req, _ := http.NewRequest(http.MethodPost, s.URL, struct{ io.Reader }{bytes.NewReader(big)})
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+chunked.token)
	req.Header.Set("Mcp-Session-Id", chunked.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if req.ContentLength != 0 || resp.StatusCode == http.StatusOK {
		t.Fatalf("chunked oversized body: length %d, HTTP %d %s", req.ContentLength, resp.StatusCode, body)
	}
	// A session id the server did not issue is refused: no client steps
	// into another's session by naming it.
	for _, sid := range []string{"mcp-session-00000000-0000-0000-0000-000000000000", "made-up"} {
		r := &rawClient{t: t, url: s.URL, token: testToken, session: sid}
		resp, body := r.post([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`))
		if resp.StatusCode < 400 {
			t.Fatalf("session id %q accepted: HTTP %d %s", sid, resp.StatusCode, body)
		}
	}
	// A loopback origin (the operator's own page) and the right token pass.
	r := &rawClient{t: t, url: s.URL, token: testToken, header: http.Header{"Origin": {"http://localhost:3000"}}}
	if res := r.rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "x", "version": "1"}}); res["result"] == nil {
		t.Fatalf("%v", res)
	}
}

// postHost posts with an explicit Host header when host is set.
func (r *rawClient) postHost(body []byte, host string) (*http.Response, []byte) {
	if host == "" {
		return r.post(body)
	}
	r.header.Del("Host")
	old := r.url
	defer func() { r.url = old }()
	req, _ := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp, b.Bytes()
}

// TestProtocolBadInput: a tool not in the catalog is a JSON-RPC error
// naming it; arguments that fail the schema are a tool error the model
// can repair; a malformed message is a parse error and the session
// lives on.
func TestProtocolBadInput(t *testing.T) {
	s := serve(t, serveOpts{})
	r := initialized(t, s)
	res := r.rpc("tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}})
	if e, _ := res["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "no_such_tool") {
		t.Fatalf("unknown tool: %v", res)
	}
	for _, args := range []any{map[string]any{"path": 5}, map[string]any{}, map[string]any{"path": "a", "extra": true}, []any{1}, "x"} {
		res = r.rpc("tools/call", map[string]any{"name": "read_file", "arguments": args})
		result, _ := res["result"].(map[string]any)
		if result == nil || result["isError"] != true || !strings.Contains(toJSON(result), "invalid_arguments") {
			t.Fatalf("args %v: %v", args, res)
		}
	}
	resp, body := r.post([]byte(`{"jsonrpc":"2.0","id":7,"method":`))
	if resp.StatusCode == http.StatusOK && !strings.Contains(string(body), "-32700") {
		t.Fatalf("malformed: HTTP %d %s", resp.StatusCode, body)
	}
	if res := r.rpc("ping", map[string]any{}); res["result"] == nil {
		t.Fatalf("the session did not survive garbage: %v", res)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestConcurrencyIsBounded: requests past the bound are answered 503 at
// once instead of queueing without end. The slot is held by a call that
// sleeps, made again until a ping is refused: under load (make race runs
// eight packages on two cores) one such call can end before a ping finds
// it in progress, and CI once read that as no 503 at all; every call's
// answer is logged, so a holder that never holds says why.
func TestConcurrencyIsBounded(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}, http: HTTPOptions{MaxConcurrent: 1}})
	r := initialized(t, s)
	other := initialized(t, s) // another session: one session's own limit is not this test's
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	refused := make(chan struct{})
	holderDone := make(chan struct{})
	go func() {
		defer close(holderDone)
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call",
			"params": map[string]any{"name": "terminal", "arguments": map[string]any{"command": "sleep 3"}}})
		for {
			select {
			case <-refused:
				return
			case <-ctx.Done():
				return
			default:
			}
			req := r.request(ctx, body)
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Logf("the holding call: %v after %v", err, time.Since(start))
				continue
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Logf("the holding call: HTTP %d after %v: %.200s", resp.StatusCode, time.Since(start), answer)
		}
	}()
	// The holder logs: it must be gone before the test ends, however it
	// ends (r.post's Fatal too).
	defer func() { cancel(); <-holderDone }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, body := other.post([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), "too many requests in progress") {
			close(refused)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 503 while the one slot was taken: HTTP %d %s", resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	<-holderDone
	// The holder has its answer; the handler's deferred release may run
	// just after the client reads it.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, body := other.post([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot was not given back: HTTP %d %s", resp.StatusCode, body)
		}
	}
}
