package mcpserve

import (
	"net/http"
	"strings"
	"testing"
)

// TestSessionsAreCapped: a client with the token cannot open sessions
// without end (each may hold a toolhost session, its MCP connections,
// for SessionIdleTTL): past ConnsPerRequest x MaxConcurrent an initialize
// is answered 503 saying how to end one, and ending one (DELETE) makes
// room.
func TestSessionsAreCapped(t *testing.T) {
	s := serve(t, serveOpts{http: HTTPOptions{MaxConcurrent: 1}})
	var open []*rawClient
	for range 4 {
		open = append(open, initialized(t, s))
	}
	r := &rawClient{t: t, url: s.URL, token: testToken}
	resp, body := r.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "sessions are open") {
		t.Fatalf("a fifth session: HTTP %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, s.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", open[0].session)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	initialized(t, s)
	// A GET stream names a session initialize made, never one of its own.
	for _, id := range []string{"", "made-up-session-id"} {
		req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Accept", "text/event-stream")
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("GET with session %q: HTTP %d", id, resp.StatusCode)
		}
	}
}
