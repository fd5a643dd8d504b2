package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// seenRequest is one JSON-RPC message a recording server received.
type seenRequest struct {
	method, metaVersion, headerVersion, headerMethod string
}

// recordingServer is a real mcp-go streamable HTTP server, speaking both
// 2025-11-25 and the stateless 2026-07-28 core, on a loopback port; it
// records the method, _meta protocol version and protocol headers of
// every message.
func recordingServer(t *testing.T) (url string, seen func() []seenRequest) {
	t.Helper()
	s := server.NewMCPServer("both_eras", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewToolWithRawSchema("echo", "Echoes its text.", json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"anyOf":[{"required":["text"]}]}`)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(r.GetString("text", "")), nil
		})
	inner := server.NewStreamableHTTPServer(s)
	var mu sync.Mutex
	var got []seenRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &msg)
			v, _ := msg.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
			mu.Lock()
			got = append(got, seenRequest{msg.Method, v, r.Header.Get("Mcp-Protocol-Version"), r.Header.Get("Mcp-Method")})
			mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { closeStreaming(srv) })
	return srv.URL + "/mcp", func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// closeStreaming closes a test server that a connection may still hold a
// stream of (the standalone GET stream lives until the pool closes, which
// a test's cleanup may do later): Close alone would wait for it forever.
func closeStreaming(srv *httptest.Server) {
	srv.CloseClientConnections()
	srv.Close()
}

func methods(seen []seenRequest) []string {
	var out []string
	for _, s := range seen {
		out = append(out, s.method)
	}
	return out
}

// TestProtocolEras: the manifest's pin decides the era. Pinned to
// 2026-07-28 the host discovers with server/discover, never initializes,
// and every request carries the version in _meta and in the headers; the
// tools' raw schemas and calls work as before. Pinned to 2025-11-25 (the
// default) it initializes and never probes.
func TestProtocolEras(t *testing.T) {
	for _, c := range []struct {
		pin, want  string
		mustSee    []string
		mustNotSee string
	}{
		{"protocol_version: \"2026-07-28\"\n", "2026-07-28", []string{"server/discover", "tools/list", "tools/call"}, "initialize"},
		{"protocol_version: 2025-11-25\n", "2025-11-25", []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}, "server/discover"},
		{"", "2025-11-25", []string{"initialize", "tools/list", "tools/call"}, "server/discover"},
	} {
		t.Run(c.want+"/"+strings.TrimSpace(c.pin), func(t *testing.T) {
			f := newFixture(t, func(cfg *Config) { cfg.Net = netpolicy.Options{AllowLoopbackForTests: true} })
			url, seen := recordingServer(t)
			mcptest.Manifest(t, f.mcpDir, "eras", "url: "+url+"\n"+c.pin)
			f.ask.allow(ConnectTool("eras"))
			r := f.resolve()
			st := state(t, r, "eras")
			if st.Status != StatusConnected || st.Protocol != c.want || !slices.Equal(st.Tools, []string{"eras__echo"}) {
				t.Fatalf("%+v", st)
			}
			if !strings.Contains(string(r.Sources[0].Tools[0].InputSchema), `"anyOf"`) {
				t.Fatalf("the raw schema was changed: %s", r.Sources[0].Tools[0].InputSchema)
			}
			out := f.dispatchTurn(r, "eras__echo").Call(context.Background(), dispatch.ToolCall{Name: "eras__echo", Args: []byte(`{"text":"era"}`)})
			if !out.OK() || unwrapped(out.Views.Model.String()) != "era" {
				t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
			}
			got := seen()
			for _, m := range c.mustSee {
				if !slices.Contains(methods(got), m) {
					t.Errorf("the server never saw %s: %q", m, methods(got))
				}
			}
			if slices.Contains(methods(got), c.mustNotSee) {
				t.Errorf("the server saw %s: %q", c.mustNotSee, methods(got))
			}
			if c.want != "2026-07-28" {
				return
			}
			for _, s := range got {
				if s.metaVersion != c.want || s.headerVersion != c.want || s.headerMethod != s.method {
					t.Errorf("a stateless request without its protocol metadata: %+v", s)
				}
			}
		})
	}
}

// TestProtocolPinRefusesOtherEra: pinned to 2026-07-28, a server that only
// speaks the initialize handshake is refused with what to pin instead,
// not silently talked to in the old era; over stdio the mcp-go server
// speaks the stateless core too.
func TestProtocolPinRefusesOtherEra(t *testing.T) {
	f := newFixture(t)
	f.server("legacy", "scripted", "protocol_version: \"2026-07-28\"\n")
	f.server("modern", "echo", "protocol_version: \"2026-07-28\"\n")
	f.ask.allow(ConnectTool("legacy"), ConnectTool("modern"))
	r := f.resolve()
	if st := state(t, r, "legacy"); st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "does not answer server/discover") || !strings.Contains(st.Diagnostic, "pin protocol_version: 2025-11-25") {
		t.Fatalf("%+v", st)
	}
	if st := state(t, r, "modern"); st.Status != StatusConnected || st.Protocol != "2026-07-28" || !slices.Contains(st.Tools, "modern__pick") {
		t.Fatalf("%+v", st)
	}
}
