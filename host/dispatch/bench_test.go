package dispatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/trace"
	"slices"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// handoffSink hands audit events to the store's writer without waiting for
// the commit: the dispatch benchmark measures the call path, and the
// durable-audit benchmarks of host/runtime measure the commit.
type handoffSink struct{ store *runtime.Store }

func (s handoffSink) Append(ctx context.Context, ev runtime.Event) (uint64, error) {
	return 0, s.store.Submit(ctx, ev, nil)
}

// reportLatency records p50 and p99 of the per-call latencies.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Nanoseconds()) }
	b.ReportMetric(pct(0.50), "p50-ns")
	b.ReportMetric(pct(0.99), "p99-ns")
}

func benchWorkspace(b *testing.B, h *harness) {
	if err := os.WriteFile(filepath.Join(h.ws, "small.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBareRoundTrip is the reference: the same read_file call sent
// straight to the coding plugin over its gRPC stream, with no host policy.
func BenchmarkBareRoundTrip(b *testing.B) {
	h := newHarness(b)
	benchWorkspace(b, h)
	req := &toolsetv1.EffectRequest{Tool: "read_file", Arguments: []byte(`{"path":"small.txt"}`), Workspace: h.ws}
	ctx := context.Background()
	if _, err := h.m.Invoke(ctx, "coding", req, pluginsHooks(), nil); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req.InvocationId = fmt.Sprint("bare-", i)
		start := time.Now()
		res, err := h.m.Invoke(ctx, "coding", req, pluginsHooks(), nil)
		lat = append(lat, time.Since(start))
		if err != nil || res.GetIsError() {
			b.Fatal(err, res)
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// readFileTurn is a turn whose audit events go to the store's writer,
// with one auto-approved read_file of small.txt made already.
func readFileTurn(b *testing.B) (*harness, *Turn, ToolCall) {
	h := newHarness(b)
	benchWorkspace(b, h)
	turn := h.turn(b, []string{"fs.read"}, nil, h.source(b, "coding", codingMeta))
	turn.Events = handoffSink{h.store}
	turn.MaxCalls = b.N + 10
	ctx := context.Background()
	call := ToolCall{ID: "bench", Name: "read_file", Args: []byte(`{"path":"small.txt"}`)}
	if out := turn.Call(ctx, call); !out.OK() {
		b.Fatal(out.Status, out.Views.Model.String())
	}
	return h, turn, call
}

// BenchmarkDispatchAutoCall is one auto-approved read_file through the
// whole path: lookup, schema, capability, assessment, approval, the
// plugin, redaction, and the audit event handed to the writer.
func BenchmarkDispatchAutoCall(b *testing.B) {
	_, turn, call := readFileTurn(b)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		out := turn.Call(ctx, call)
		lat = append(lat, time.Since(start))
		if !out.OK() {
			b.Fatal(out.Status, out.Views.Model.String())
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func pluginsHooks() plugins.Hooks { return plugins.Hooks{} }

// cannedAdapter answers every call with one result the plugin gave
// before, with no round trip.
type cannedAdapter struct{ res *toolsetv1.ToolResult }

func (c cannedAdapter) Invoke(context.Context, Invocation) (*toolsetv1.ToolResult, error) {
	return c.res, nil
}

func (c cannedAdapter) Precheck(context.Context, Invocation) (*toolsetv1.ToolResult, error) {
	return &toolsetv1.ToolResult{}, nil
}

// discardSink takes audit events and keeps none.
type discardSink struct{ n *int }

func (s discardSink) Append(context.Context, runtime.Event) (uint64, error) {
	*s.n++
	return uint64(*s.n), nil
}

// BenchmarkDispatchOwnCost is BenchmarkDispatchAutoCall's call with the
// coding plugin's real answer played back instead of the round trip: the
// time, bytes and allocations the call path itself adds to every call,
// which the round trip's noise hides in the interleaved benchmark. The
// audit data is built as for the store but not handed to it: at this
// rate the writer's commits (fdatasync on the one P of -test.cpu 1) would
// be most of what is measured; host/runtime's benchmarks measure them.
func BenchmarkDispatchOwnCost(b *testing.B) {
	h, turn, call := readFileTurn(b)
	var events int
	turn.Events = discardSink{&events}
	req := &toolsetv1.EffectRequest{Tool: "read_file", Arguments: []byte(`{"path":"small.txt"}`), Workspace: h.ws, InvocationId: "recorded"}
	res, err := h.m.Invoke(context.Background(), "coding", req, pluginsHooks(), nil)
	if err != nil || res.GetIsError() {
		b.Fatal(err, res)
	}
	entry, _ := turn.Catalog.Lookup(call.Name)
	entry.Binding = cannedAdapter{res}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out := turn.Call(ctx, call); !out.OK() {
			b.Fatal(out.Status, out.Views.Model.String())
		}
	}
}

// BenchmarkDispatchInterleaved alternates blocks of bare round trips and
// dispatched calls in one run, so that both see the same load on a shared
// machine; it reports both p50s and p99s and their ratios (x1000), and
// the process's CPU time per call of each arm's blocks (getrusage at each
// block's end: the call's own goroutine, the gRPC transport's and the audit
// writer's), which the other processes on a busy machine move less than
// they move latency.
//
// Each call runs in a runtime/trace region ("bare" or "dispatch"; free
// when not tracing), so that a -test.trace of this benchmark separates
// the two arms: `go tool trace -d=parsed` lists each region's goroutine
// creations, unblocks and syscalls (stop 53 counted them per call this way).
func BenchmarkDispatchInterleaved(b *testing.B) {
	h, turn, call := readFileTurn(b)
	ctx := context.Background()
	req := &toolsetv1.EffectRequest{Tool: "read_file", Arguments: []byte(`{"path":"small.txt"}`), Workspace: h.ws}
	const block = 50
	bare := make([]time.Duration, 0, b.N/2+block)
	viaDispatch := make([]time.Duration, 0, b.N/2+block)
	var cpu [2]time.Duration // bare, dispatch
	blockStart := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%block == 0 && i > 0 {
			now := processCPU()
			cpu[(i-1)/block%2] += now - blockStart
			blockStart = now
		}
		start := time.Now()
		if i/block%2 == 0 {
			req.InvocationId = fmt.Sprint("bare-", i)
			region := trace.StartRegion(ctx, "bare")
			res, err := h.m.Invoke(ctx, "coding", req, pluginsHooks(), nil)
			region.End()
			bare = append(bare, time.Since(start))
			if err != nil || res.GetIsError() {
				b.Fatal(err, res)
			}
		} else {
			region := trace.StartRegion(ctx, "dispatch")
			out := turn.Call(ctx, call)
			region.End()
			viaDispatch = append(viaDispatch, time.Since(start))
			if !out.OK() {
				b.Fatal(out.Status, out.Views.Model.String())
			}
		}
	}
	if b.N > 0 {
		cpu[(b.N-1)/block%2] += processCPU() - blockStart // the last block
	}
	b.StopTimer()
	if len(bare) == 0 || len(viaDispatch) == 0 {
		return
	}
	pct := func(lat []time.Duration, p float64) float64 {
		slices.Sort(lat)
		return float64(lat[int(float64(len(lat)-1)*p)].Nanoseconds())
	}
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		bv, dv := pct(bare, p.q), pct(viaDispatch, p.q)
		b.ReportMetric(bv, "bare-"+p.name+"-ns")
		b.ReportMetric(dv, "dispatch-"+p.name+"-ns")
		b.ReportMetric(1000*dv/bv, p.name+"-ratio-x1000")
	}
	b.ReportMetric(float64(cpu[0].Nanoseconds())/1000/float64(len(bare)), "bare-cpu-µs")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/1000/float64(len(viaDispatch)), "dispatch-cpu-µs")
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPluginCallAfterIdle is the plugin round trip of read_file
// (plugins.Manager.Invoke, no dispatch) called back to back, and called
// after the plugin sat idle for as long as a model step's stream takes
// (2 ms), alternating blocks in one run. An agent step calls its tool
// after such a pause: the difference is what waking the plugin process
// costs (BENCHMARKS §18.2).
func BenchmarkPluginCallAfterIdle(b *testing.B) {
	h, _, _ := readFileTurn(b)
	ctx := context.Background()
	req := &toolsetv1.EffectRequest{Tool: "read_file", Arguments: []byte(`{"path":"small.txt"}`), Workspace: h.ws}
	const block, idle = 20, 2 * time.Millisecond
	var hot, afterIdle []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rested := i/block%2 == 1
		if rested {
			time.Sleep(idle)
		}
		req.InvocationId = fmt.Sprint("idle-", i)
		start := time.Now()
		res, err := h.m.Invoke(ctx, "coding", req, pluginsHooks(), nil)
		d := time.Since(start)
		if err != nil || res.GetIsError() {
			b.Fatal(err, res)
		}
		if rested {
			afterIdle = append(afterIdle, d)
		} else {
			hot = append(hot, d)
		}
	}
	b.StopTimer()
	if len(hot) == 0 || len(afterIdle) == 0 {
		return
	}
	p50 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds())
	}
	b.ReportMetric(p50(hot), "hot-p50-µs")
	b.ReportMetric(p50(afterIdle), "after-idle-p50-µs")
}
