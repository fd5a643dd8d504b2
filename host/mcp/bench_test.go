package mcp

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/catalog"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/runtime"
)

// BenchmarkTurnResolve is the per-turn MCP work with 10 connected servers
// offering 300 tools (connections cached): reading the manifests, the
// pool's resolution, and with "catalog" also the catalog's resolution of
// those 300 tools.
func BenchmarkTurnResolve(b *testing.B) {
	f := newFixtureTB(b)
	for i := range 10 {
		id := fmt.Sprintf("s%02d", i)
		f.server(id, "huge_list", "env: {HUGE_COUNT: \"30\"}\n")
		f.ask.allow(ConnectTool(id))
	}
	r := f.resolve()
	n := 0
	for _, s := range r.Sources {
		n += len(s.Tools)
	}
	if len(r.Sources) != 10 || n != 300 {
		b.Fatalf("%d sources, %d tools", len(r.Sources), n)
	}
	ctx := context.Background()
	var m Manifests
	b.Run("mcp-sources", func(b *testing.B) {
		for b.Loop() {
			servers, errs := m.Load(f.mcpDir)
			r := f.pool.Resolve(ctx, Turn{Authority: f.authority(), Workspace: f.ws, Servers: servers, Errors: errs})
			if len(r.Sources) != 10 {
				b.Fatal(r.States)
			}
		}
	})
	b.Run("catalog", func(b *testing.B) {
		for b.Loop() {
			servers, errs := m.Load(f.mcpDir)
			r := f.pool.Resolve(ctx, Turn{Authority: f.authority(), Workspace: f.ws, Servers: servers, Errors: errs})
			if _, err := catalog.Resolve(r.Sources, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// handoffSink hands audit events to the store's writer without waiting
// for the commit, as dispatch's own benchmark does: this measures the
// call path, host/runtime's benchmarks measure the commit.
type handoffSink struct{ store *runtime.Store }

func (s handoffSink) Append(ctx context.Context, ev runtime.Event) (uint64, error) {
	return 0, s.store.Submit(ctx, ev, nil)
}

// BenchmarkCallOverhead compares one echo call sent with mcp-go straight
// to the server (direct) with the same call through dispatch (schema,
// capability, assessment, approval by rule, the adapter, redaction, the
// audit event), on the same connection. Both report p50 and p99, and the
// host's and the server's CPU per call.
func BenchmarkCallOverhead(b *testing.B) {
	f := newFixtureTB(b)
	f.server("echo", "echo", "")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	c := f.pool.conns["echo"].c
	pgid := c.pgid
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": "hello"}
		lat := make([]time.Duration, 0, b.N)
		host, server := processCPU(b, pgid)
		for b.Loop() {
			start := time.Now()
			res, err := c.client.CallTool(ctx, req)
			lat = append(lat, time.Since(start))
			if err != nil || res.IsError {
				b.Fatal(err)
			}
		}
		reportCPU(b, pgid, host, server)
		reportLatency(b, lat)
	})
	b.Run("dispatch", func(b *testing.B) {
		turn := f.dispatchTurn(r, "echo__echo")
		store := turn.Events.(*runtime.Store)
		turn.Events = handoffSink{store}
		turn.MaxCalls = 1 << 30
		call := dispatch.ToolCall{ID: "bench", Name: "echo__echo", Args: []byte(`{"text":"hello"}`)}
		lat := make([]time.Duration, 0, b.N)
		host, server := processCPU(b, pgid)
		for b.Loop() {
			start := time.Now()
			out := turn.Call(ctx, call)
			lat = append(lat, time.Since(start))
			if !out.OK() {
				b.Fatal(out.Status, unwrapped(out.Views.Model.String()))
			}
		}
		// The store's writer commits what the calls submitted on its
		// own goroutine: its CPU is the host's too.
		if err := store.Close(); err != nil {
			b.Fatal(err)
		}
		reportCPU(b, pgid, host, server)
		reportLatency(b, lat)
	})
	// interleaved alternates blocks of direct and dispatch calls within
	// one run, so both see the same load on a shared machine; it reports
	// both p50s and their ratio (x1000). Its turn has no listener, as the
	// direct call has none; interleaved-listening is the same with one
	// (Turn.OnEvent, as a chat or run session has): each call then asks
	// the server for progress with a token of its own.
	for _, listening := range []bool{false, true} {
		name := "interleaved"
		if listening {
			name = "interleaved-listening"
		}
		b.Run(name, func(b *testing.B) {
			turn := f.dispatchTurn(r, "echo__echo")
			store := turn.Events.(*runtime.Store)
			turn.Events = handoffSink{store}
			turn.MaxCalls = 1 << 30
			if listening {
				turn.OnEvent = func(string, dispatch.Event) {}
			}
			call := dispatch.ToolCall{ID: "bench", Name: "echo__echo", Args: []byte(`{"text":"hello"}`)}
			req := mcp.CallToolRequest{}
			req.Params.Name = "echo"
			req.Params.Arguments = map[string]any{"text": "hello"}
			const block = 50
			direct := make([]time.Duration, 0, b.N/2+block)
			viaDispatch := make([]time.Duration, 0, b.N/2+block)
			i := 0
			for b.Loop() {
				start := time.Now()
				if i/block%2 == 0 {
					res, err := c.client.CallTool(ctx, req)
					direct = append(direct, time.Since(start))
					if err != nil || res.IsError {
						b.Fatal(err)
					}
				} else {
					out := turn.Call(ctx, call)
					viaDispatch = append(viaDispatch, time.Since(start))
					if !out.OK() {
						b.Fatal(out.Status, unwrapped(out.Views.Model.String()))
					}
				}
				i++
			}
			if len(direct) == 0 || len(viaDispatch) == 0 {
				return
			}
			d, v := percentile(direct, 0.5), percentile(viaDispatch, 0.5)
			b.ReportMetric(d, "direct-p50-ns")
			b.ReportMetric(v, "dispatch-p50-ns")
			b.ReportMetric(percentile(direct, 0.99), "direct-p99-ns")
			b.ReportMetric(percentile(viaDispatch, 0.99), "dispatch-p99-ns")
			b.ReportMetric(1000*v/d, "ratio-x1000")
		})
	}
}

// percentile sorts lat and returns its p-th percentile in nanoseconds.
func percentile(lat []time.Duration, p float64) float64 {
	slices.Sort(lat)
	return float64(lat[int(float64(len(lat)-1)*p)].Nanoseconds())
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Nanoseconds()) }
	b.ReportMetric(pct(0.50), "p50-ns")
	b.ReportMetric(pct(0.99), "p99-ns")
}
