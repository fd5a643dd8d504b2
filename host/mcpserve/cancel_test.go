package mcpserve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/plugins/plugintest"
)

// modernPost posts one 2026-07-28 message (no session) with the token.
func modernPost(ctx context.Context, t *testing.T, u, method, name, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAClientCannotCancelAnotherClientsCall: in the 2026-07-28 revision
// requests carry no session, and mcp-go keys a call in flight by its
// session and JSON-RPC id; another client with the token sending
// notifications/cancelled for that id (ids count from 1) cancelled the
// call. It runs to its end; its own client cancels it by closing the
// request.
func TestAClientCannotCancelAnotherClientsCall(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	const meta = `"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"%s","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	// The cancels go once the call's command runs, not after a fixed
	// time: under load a call that had not reached the server yet was not
	// in flight, and a cancel of it tested nothing.
	const marker = "5.0771"
	done := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, body := modernPost(ctx, t, s.URL, "tools/call", "terminal", `{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"sleep `+marker+`; echo finished"},`+strings.Replace(meta, "%s", "a", 1)+`}}`)
		done <- body
	}()
	plugintest.WaitFor(t, 30*time.Second, "the call's command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	for _, spelling := range []string{`"requestId":77`, `"requestId":"77"`} {
		code, body := modernPost(context.Background(), t, s.URL, "notifications/cancelled", "",
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{`+spelling+`,"reason":"not yours",`+strings.Replace(meta, "%s", "b", 1)+`}}`)
		if code != http.StatusAccepted {
			t.Fatalf("cancel: HTTP %d %s", code, body)
		}
	}
	select {
	case body := <-done:
		if !strings.Contains(body, "finished") {
			t.Fatalf("another client's notifications/cancelled ended the call: %s", body)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the call never answered")
	}
}
