package mcpserve

import (
	"net/http"
	"testing"
)

// TestEndedSessionsAreForgotten: a client that opens and ends sessions in
// a loop leaves nothing behind. mcp-go's stateful session manager kept
// every ended id for the life of the server (some 180 bytes a session,
// without bound); an ended session's id is forgotten, and a request that
// carries it is answered 404, as the spec says of a terminated session.
func TestEndedSessionsAreForgotten(t *testing.T) {
	s := serve(t, serveOpts{})
	var ended []*rawClient
	for range 50 {
		r := initialized(t, s)
		endSession(t, s, r.session)
		ended = append(ended, r)
	}
	s.Srv.mu.Lock()
	ids := s.Srv.ids
	s.Srv.mu.Unlock()
	if n := ids.count(); n != 0 {
		t.Fatalf("%d ids of ended sessions are kept", n)
	}
	resp, body := ended[0].post([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a request of an ended session: HTTP %d %s", resp.StatusCode, body)
	}
}

// endSession ends a session as a client does: DELETE with its id.
func endSession(t *testing.T, s *served, id string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, s.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
}
