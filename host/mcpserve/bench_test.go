package mcpserve

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/toolhost"
)

// reportLatency records p50 and p99 of the per-call latencies.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Nanoseconds()) }
	b.ReportMetric(pct(0.50), "p50-ns")
	b.ReportMetric(pct(0.99), "p99-ns")
}

// benchHost is a host on the default core with a small file to read.
func benchHost(b *testing.B) *toolhost.Host {
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "small.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	h, err := toolhost.Open(toolhost.Options{Workspace: ws, StateDir: b.TempDir(), BuiltinPluginDir: builtinDir, Approver: approval.DenyAll{}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

// benchClient serves srv on loopback HTTP behind handler and connects an
// mcp-go client to it.
func benchClient(b *testing.B, handler http.Handler, headers map[string]string) *client.Client {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	b.Cleanup(func() { hs.Close() })
	tr, err := transport.NewStreamableHTTP("http://"+ln.Addr().String()+EndpointPath, transport.WithHTTPHeaders(headers))
	if err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func benchCall(b *testing.B, c *client.Client, name string, args map[string]any) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := c.CallTool(context.Background(), req)
		lat = append(lat, time.Since(start))
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkServedReadFile compares, in one run: an auto-approved
// read_file served over MCP (client → streamable HTTP on loopback → mcp
// serve → dispatch → plugin and back), the same call through dispatch in
// process, the same dispatch call behind a bare mcp-go server, and a bare
// MCP round trip to a trivial mcp-go server over the same transport.
func BenchmarkServedReadFile(b *testing.B) {
	b.Run("served", func(b *testing.B) {
		h := benchHost(b)
		srv, err := New(context.Background(), Options{Host: h, Refresh: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(srv.Close)
		handler, err := srv.HTTPHandler(HTTPOptions{Token: testToken})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = handler.Shutdown(context.Background()) })
		c := benchClient(b, handler, map[string]string{"Authorization": "Bearer " + testToken})
		benchCall(b, c, "read_file", map[string]any{"path": "small.txt"})
	})
	b.Run("dispatch-in-process", func(b *testing.B) {
		h := benchHost(b)
		ctx := context.Background()
		call := dispatch.ToolCall{Name: "read_file", Args: []byte(`{"path":"small.txt"}`)}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			// A fresh turn per call, as a served call gets.
			turn, err := h.NewTurn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			call.ID = fmt.Sprint("bench_", i)
			out := turn.Call(ctx, call)
			lat = append(lat, time.Since(start))
			if !out.OK() {
				b.Fatal(out.Status, out.Views.Model.String())
			}
		}
		b.StopTimer()
		reportLatency(b, lat)
	})
	b.Run("bare-mcp-dispatch", func(b *testing.B) {
		// The same dispatch call behind a bare mcp-go server: what the
		// transport costs when its handler blocks as long as the call does,
		// without Demiurge's serve layer (sessions, approver, HTTP checks,
		// result shaping). served minus this is that layer's cost.
		h := benchHost(b)
		s := server.NewMCPServer("bare", "1")
		var n atomic.Uint64
		s.AddTool(mcp.NewTool("read_file", mcp.WithString("path")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			turn, err := h.NewTurn(ctx)
			if err != nil {
				return nil, err
			}
			out := turn.Call(ctx, dispatch.ToolCall{ID: fmt.Sprint("bare_", n.Add(1)), Name: "read_file", Args: []byte(req.Params.RawArguments)})
			return mcp.NewToolResultText(out.Views.Model.String()), nil
		})
		handler := server.NewStreamableHTTPServer(s, server.WithEndpointPath(EndpointPath), server.WithStateful(true))
		b.Cleanup(func() { _ = handler.Shutdown(context.Background()) })
		c := benchClient(b, handler, nil)
		benchCall(b, c, "read_file", map[string]any{"path": "small.txt"})
	})
	b.Run("bare-mcp", func(b *testing.B) {
		s := server.NewMCPServer("trivial", "1")
		s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("     1\tone\n     2\ttwo\n     3\tthree\n"), nil
		})
		handler := server.NewStreamableHTTPServer(s, server.WithEndpointPath(EndpointPath), server.WithStateful(true))
		b.Cleanup(func() { _ = handler.Shutdown(context.Background()) })
		c := benchClient(b, handler, nil)
		benchCall(b, c, "echo", map[string]any{"text": "small.txt"})
	})
}

// BenchmarkToolsList300 is tools/list of a 300-tool catalog over
// streamable HTTP on loopback.
func BenchmarkToolsList300(b *testing.B) {
	h := benchHost(b)
	srv, err := New(context.Background(), Options{Host: h, Refresh: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	cat, err := h.Catalog(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	base, _ := cat.Lookup("search_files")
	specs := make([]catalog.ToolSpec, 300)
	for i := range specs {
		specs[i] = base.Spec
		specs[i].Name = fmt.Sprintf("tool_%03d", i)
	}
	big, err := catalog.Resolve([]catalog.Source{{Kind: catalog.SourceBuiltin, Name: "coding", Tools: specs}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	srv.list(big)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go func() { _ = srv.ServeHTTP(ctx, ln, HTTPOptions{Token: testToken}) }()
	// A raw client: the figure is the server's and the wire's, not a
	// client library's decoding of 300 schemas.
	r := &rawClient{t: b, url: "http://" + ln.Addr().String() + EndpointPath, token: testToken}
	r.rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}})
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		resp, out := r.post(body)
		lat = append(lat, time.Since(start))
		if resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte(`"tool_299"`)) {
			b.Fatal(resp.StatusCode, len(out))
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkBlockingHandler shows what a bare round trip costs when its
// handler blocks as a served call does (here by sleeping 1.5 ms), against
// the same sleep alone: the wake-up of the parked client and server,
// which a trivial round trip does not pay.
func BenchmarkBlockingHandler(b *testing.B) {
	const nap = 1500 * time.Microsecond
	b.Run("bare-mcp-sleep", func(b *testing.B) {
		s := server.NewMCPServer("bare", "1")
		s.AddTool(mcp.NewTool("nap"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(nap)
			return mcp.NewToolResultText("     1\tone\n     2\ttwo\n     3\tthree\n"), nil
		})
		handler := server.NewStreamableHTTPServer(s, server.WithEndpointPath(EndpointPath), server.WithStateful(true))
		b.Cleanup(func() { _ = handler.Shutdown(context.Background()) })
		c := benchClient(b, handler, nil)
		benchCall(b, c, "nap", nil)
	})
	b.Run("sleep-alone", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			start := time.Now()
			time.Sleep(nap)
			lat = append(lat, time.Since(start))
		}
		reportLatency(b, lat)
	})
}
