package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// keyLog records, per HTTP method, the X-Api-Key values a server saw.
type keyLog struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (k *keyLog) wrap(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		if k.seen == nil {
			k.seen = map[string][]string{}
		}
		k.seen[r.Method] = append(k.seen[r.Method], r.Header.Get("X-Api-Key"))
		k.mu.Unlock()
		inner.ServeHTTP(w, r)
	})
}

func (k *keyLog) get(method string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.seen[method]...)
}

func noopServer() http.Handler {
	s := server.NewMCPServer("keys", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	return server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(quietLogger))
}

// TestManifestHeadersOnEveryRequest: the manifest's headers go with every
// request to the server, the standalone GET stream and the DELETE that
// ends the session included.
func TestManifestHeadersOnEveryRequest(t *testing.T) {
	var keys keyLog
	srv := httptest.NewServer(keys.wrap(noopServer()))
	t.Cleanup(func() { closeStreaming(srv) })
	f := newFixture(t, func(cfg *Config) { cfg.Net = netpolicy.Options{AllowLoopbackForTests: true} })
	mcptest.Manifest(t, f.mcpDir, "keys", "url: "+srv.URL+"/mcp\nheaders: {X-Api-Key: k-123}\n")
	f.ask.allow(ConnectTool("keys"))
	if st := state(t, f.resolve(), "keys"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	waitFor(t, func() bool { return len(keys.get(http.MethodGet)) > 0 })
	f.pool.Close()
	waitFor(t, func() bool { return len(keys.get(http.MethodDelete)) > 0 })
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		for _, v := range keys.get(m) {
			if v != "k-123" {
				t.Fatalf("a %s went with X-Api-Key %q; every one: %v", m, v, keys.get(m))
			}
		}
	}
}

// TestManifestHeadersNotAcrossRedirect: a server that redirects to another
// origin does not get the manifest's key sent there.
func TestManifestHeadersNotAcrossRedirect(t *testing.T) {
	var there keyLog
	target := httptest.NewServer(there.wrap(noopServer()))
	t.Cleanup(func() { closeStreaming(target) })
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	f := newFixture(t, func(cfg *Config) { cfg.Net = netpolicy.Options{AllowLoopbackForTests: true} })
	mcptest.Manifest(t, f.mcpDir, "hop", "url: "+redirector.URL+"/mcp\nheaders: {X-Api-Key: k-123}\n")
	f.ask.allow(ConnectTool("hop"))
	f.resolve()
	if len(there.get(http.MethodPost)) == 0 {
		t.Fatal("the redirect was not followed: the test shows nothing")
	}
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		for _, v := range there.get(m) {
			if v != "" {
				t.Fatalf("the key reached the redirect's target on a %s", m)
			}
		}
	}
}
