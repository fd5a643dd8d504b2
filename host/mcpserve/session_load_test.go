package mcpserve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOneSessionCannotHoldEveryPlace: a session's requests in progress
// hold at most half of --max-concurrent; past that its request is answered
// 503 saying so, while another session's is served and the first
// session's notifications still pass.
func TestOneSessionCannotHoldEveryPlace(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}, http: HTTPOptions{MaxConcurrent: 4}})
	a, b := initialized(t, s), initialized(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
				"params": map[string]any{"name": "terminal", "arguments": map[string]any{"command": "sleep 30"}}})
			req := a.request(ctx, body)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, body := a.post([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		if resp.StatusCode == http.StatusServiceUnavailable {
			if !strings.Contains(string(body), "this session has 2 requests in progress") {
				t.Fatalf("the refusal: %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 503 while the session held its share: HTTP %d %s", resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if res := b.rpc("ping", map[string]any{}); res["result"] == nil {
		t.Fatalf("another session's request: %v", res)
	}
	if resp, body := a.post([]byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("a notification of the busy session: HTTP %d %s", resp.StatusCode, body)
	}
}
