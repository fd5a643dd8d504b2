package mcpserve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/plugins/plugintest"
)

// TestDisconnectMidCallEndsTheProcess: a client that goes away while its
// terminal call runs cancels the call, and the command's process is gone.
func TestDisconnectMidCallEndsTheProcess(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	r := initialized(t, s)
	marker := "317.4242"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "tools/call",
		"params": map[string]any{"name": "terminal", "arguments": map[string]any{"command": "sleep " + marker}}})
	req := r.request(ctx, body)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	plugintest.WaitFor(t, 30*time.Second, "the command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	cancel() // the client disconnects
	<-done
	plugintest.WaitFor(t, 15*time.Second, "the command's process to end after the disconnect", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
}

// TestEndedSessionCancelsItsTasks: a client that ends its HTTP session
// (DELETE) takes its background tasks with it: nobody could follow them.
func TestEndedSessionCancelsItsTasks(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	r := initialized(t, s)
	marker := "300.7171"
	res := r.rpc("tools/call", map[string]any{"name": "terminal", "arguments": map[string]any{"command": "sleep " + marker, "background": true}})
	if !strings.Contains(toJSON(res), "task_") {
		t.Fatalf("%v", res)
	}
	plugintest.WaitFor(t, 30*time.Second, "the background command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	req, _ := http.NewRequest(http.MethodDelete, s.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", r.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	plugintest.WaitFor(t, 20*time.Second, "the ended session's task to be cancelled", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
}
