package mcpserve

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

const deferringCore = "toolsets: [coding, demiurge_control]\ncapabilities: [fs.read, fs.write, network.fetch]\ntools:\n  deferred: [web_extract]\n"

func listedNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestDeferredToolsPerClient: a deferred tool is neither listed nor
// callable until search_capabilities activates it, and then only for the
// client whose session activated it, which is told its list changed.
func TestDeferredToolsPerClient(t *testing.T) {
	s := serve(t, serveOpts{core: deferringCore})
	a, b := connect(t, s, mcp.ProtocolVersion20251125, nil), connect(t, s, mcp.ProtocolVersion20251125, nil)
	for _, c := range []*client.Client{a, b} {
		if names := listedNames(t, c); slices.Contains(names, "web_extract") || !slices.Contains(names, "search_capabilities") || !slices.Contains(names, "read_file") {
			t.Fatalf("listed %q: want web_extract deferred, search_capabilities and read_file listed", names)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "web_extract", map[string]any{"url": "https://example.org/"}
	if res, err := a.CallTool(ctx, req); err == nil && !res.IsError {
		t.Fatal("a deferred tool was called before its activation")
	}

	if res := call(t, a, "search_capabilities", map[string]any{"query": "web_extract"}); res.IsError || !strings.Contains(text(res), "web_extract") {
		t.Fatalf("search_capabilities: %s", text(res))
	}
	if names := listedNames(t, a); !slices.Contains(names, "web_extract") {
		t.Fatalf("after activation the client lists %q, without web_extract", names)
	}
	if names := listedNames(t, b); slices.Contains(names, "web_extract") {
		t.Fatal("another client's activation listed web_extract for this one")
	}
	// Activated, it reaches dispatch (which refuses the loopback address
	// it is given here: the call got past the listing).
	req.Params.Arguments = map[string]any{"url": "http://127.0.0.1:1/"}
	res, err := a.CallTool(ctx, req)
	if err != nil || !res.IsError || strings.Contains(text(res), "not found") {
		t.Fatalf("web_extract after activation: %v %s", err, text(res))
	}
}

// TestActivationNotifiesListChanged: each activation sends the client
// notifications/tools/list_changed, on the call's own response stream or
// on its GET stream (the spec allows either; which one is a race inside
// mcp-go, which can also drop one the call's stream took: mcp-go#969).
// Repeated, so that a dropped notice shows; without a GET stream the
// call's stream is the only one that can take it.
func TestActivationNotifiesListChanged(t *testing.T) {
	for _, withGET := range []bool{false, true} {
		t.Run(map[bool]string{false: "call stream", true: "with GET stream"}[withGET], func(t *testing.T) {
			s := serve(t, serveOpts{core: deferringCore})
			r := initialized(t, s)
			var notes <-chan string
			if withGET {
				notes = listen(t, r)
			}
			onGET := 0
			for i := 1; i <= 30; i++ {
				if res := r.rpc("tools/call", map[string]any{"name": "search_capabilities", "arguments": map[string]any{"query": "web_extract"}}); res["result"] == nil {
					t.Fatalf("search_capabilities: %v", res)
				}
				deadline := time.After(5 * time.Second)
				for len(r.notices)+onGET < i {
					select {
					case n := <-notes:
						if !strings.Contains(n, "notifications/tools/list_changed") {
							t.Fatalf("notice %s", n)
						}
						onGET++
					case <-deadline:
						t.Fatalf("activation %d: no tools/list_changed within 5s (%d came on the calls' streams, %d on GET)", i, len(r.notices), onGET)
					}
				}
			}
		})
	}
}
