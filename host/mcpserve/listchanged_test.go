package mcpserve

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"demiurge.dev/catalog"
)

// listen opens the session's GET stream and sends each notification
// method it carries to the returned channel. (mcp-go's client opens its
// stream before it has a session id, so this reads the wire itself.)
func listen(t *testing.T, r *rawClient) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set("Mcp-Session-Id", r.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: HTTP %d", resp.StatusCode)
	}
	out := make(chan string, 16)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"method"`) {
				out <- d
			}
		}
	}()
	return out
}

// TestListChanged: a changed catalog notifies a connected client
// (notifications/tools/list_changed); the watcher, re-resolving an
// unchanged catalog, notifies nobody, and puts back the resolved one.
func TestListChanged(t *testing.T) {
	s := serve(t, serveOpts{refresh: 50 * time.Millisecond})
	r := initialized(t, s)
	notes := listen(t, r)
	select {
	case n := <-notes:
		t.Fatalf("a notice for an unchanged catalog: %s", n)
	case <-time.After(400 * time.Millisecond):
	}
	cat, err := s.Host.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	smaller, err := catalog.Resolve([]catalog.Source{{Kind: catalog.SourceBuiltin, Name: "coding",
		Tools: []catalog.ToolSpec{cat.Entries()[0].Spec}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Srv.list(smaller)
	for i := 0; i < 2; i++ { // the change, then the watcher's return to the resolved catalog
		select {
		case n := <-notes:
			if !strings.Contains(n, "notifications/tools/list_changed") {
				t.Fatalf("notice %s", n)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("notice %d did not come within 10s", i+1)
		}
	}
	res := r.rpc("tools/list", map[string]any{})
	if tools := res["result"].(map[string]any)["tools"].([]any); len(tools) != cat.Len() {
		t.Fatalf("listed %d tools after the watcher, want %d", len(tools), cat.Len())
	}
}
