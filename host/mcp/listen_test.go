package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// TestStandaloneStreamEndsWithTheConnection: pinned before 2026-07-28, a
// connection to a streamable HTTP server holds the standalone GET stream
// open (where a server may send its forms), and closing the pool ends it:
// the server sees the stream's request finish. Pinned to 2026-07-28 no
// GET stream is opened at all.
func TestStandaloneStreamEndsWithTheConnection(t *testing.T) {
	for _, c := range []struct {
		pin     string
		streams int64
	}{{"2025-11-25", 1}, {"2026-07-28", 0}} {
		t.Run(c.pin, func(t *testing.T) {
			s := server.NewMCPServer("listen", "1.0.0", server.WithToolCapabilities(false))
			s.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			inner := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(quietLogger))
			var open, seen atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					open.Add(1)
					seen.Add(1)
					defer open.Add(-1)
				}
				inner.ServeHTTP(w, r)
			}))
			t.Cleanup(func() { closeStreaming(srv) })
			f := newFixture(t, func(cfg *Config) { cfg.Net = netpolicy.Options{AllowLoopbackForTests: true} })
			mcptest.Manifest(t, f.mcpDir, "listen", "url: "+srv.URL+"/mcp\nprotocol_version: \""+c.pin+"\"\n")
			f.ask.allow(ConnectTool("listen"))
			if st := state(t, f.resolve(), "listen"); st.Status != StatusConnected {
				t.Fatalf("%+v", st)
			}
			waitFor(t, func() bool { return open.Load() == c.streams })
			if c.streams == 0 && seen.Load() != 0 {
				t.Fatalf("%d GET streams opened under %s", seen.Load(), c.pin)
			}
			f.pool.Close()
			waitFor(t, func() bool { return open.Load() == 0 }) // the GET stream ends with the pool
		})
	}
}
