package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawClient speaks JSON-RPC over the streamable HTTP endpoint by hand,
// for what a library client would not send, and to see the wire.
type rawClient struct {
	t       testing.TB
	url     string
	token   string
	session string
	header  http.Header
	// notices are the notifications that came on a POST's own SSE
	// response: the server may send one there rather than on the GET
	// stream (mcp-go's forwarders of both take from one channel).
	notices []string
}

func (r *rawClient) post(body []byte) (*http.Response, []byte) {
	r.t.Helper()
	req := r.request(context.Background(), body)
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// request is a POST of body to the endpoint with the client's token,
// session and headers, for a test that sends it itself (one it cancels,
// or holds while others are sent).
func (r *rawClient) request(ctx context.Context, body []byte) *http.Request {
	r.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	return req
}

// rpc sends one request and returns its JSON-RPC response message.
func (r *rawClient) rpc(method string, params any) map[string]any {
	r.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, b := r.post(body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		r.t.Fatalf("%s: HTTP %d %s", method, resp.StatusCode, b)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		r.session = sid
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"method"`) && !strings.Contains(d, `"id"`) {
				r.notices = append(r.notices, d)
			}
		}
	}
	return decodeMessage(r.t, resp.Header.Get("Content-Type"), b)
}

// decodeMessage reads a JSON body or the last data line of an SSE body.
func decodeMessage(t testing.TB, contentType string, b []byte) map[string]any {
	t.Helper()
	if strings.HasPrefix(contentType, "text/event-stream") {
		var last string
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				last = d
			}
		}
		b = []byte(last)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %v: %s", err, b)
	}
	return m
}

// initialized is a raw client after a 2025-11-25 handshake.
func initialized(t *testing.T, s *served) *rawClient {
	t.Helper()
	r := &rawClient{t: t, url: s.URL, token: testToken}
	res := r.rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	if res["result"] == nil {
		t.Fatalf("initialize: %v", res)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	r.post(body)
	return r
}
