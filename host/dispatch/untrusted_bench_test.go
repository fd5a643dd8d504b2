package dispatch

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"demiurge.dev/catalog"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/untrusted"
	"demiurge.dev/host/untrusted/oracle"
)

// webText is n bytes of ordinary web-page text in lines of 100 bytes,
// with the screening's vocabulary in it (so its rules run) and no signal.
func webText(n int) string {
	line := "The previous notes explain how AI models are evaluated; run the command and follow the guide; see <b>.\n"
	line = line[:99] + "\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// benchmarkScreening runs one call returning an n-byte text (the
// fixture plugin's echo) through the whole call path, alternating a turn
// where the tool's source is an MCP server (so its result is wrapped and
// screened) with one where it is a plain plugin (the same plugin process
// and store), and reports each one's median and the ratio of the
// medians. It is the host's part of an MCP or web result of that size:
// the plugin's answer over gRPC, redaction, the audit event, and with
// screening the scan, the envelope and the verdict in the event. (echo
// takes its text as an argument, so the host also checks and redacts n
// bytes of arguments; a web_extract has a short URL there. See
// BenchmarkScreenVsRedact1MiB for the ratio without that.)
func benchmarkScreening(b *testing.B, n int) {
	args, _ := json.Marshal(map[string]string{"text": webText(n)})
	benchmarkScreeningCall(b, ToolCall{ID: "bench", Name: "echo", Args: args}, n, true)
}

// BenchmarkScreening1MiBResult is benchmarkScreening for a 1 MiB result
// with short arguments, as a large web page's: the fixture's page tool
// returns 1 MiB of web-page text (web_extract itself returns at most
// 200,000 characters, webextract.MaxMaxChars).
func BenchmarkScreening1MiBResult(b *testing.B) {
	benchmarkScreeningCall(b, ToolCall{ID: "bench", Name: "page", Args: json.RawMessage(`{"bytes":1048576}`)}, 1<<20, true)
}

// BenchmarkScreening1MiBPair is BenchmarkScreening1MiBResult with only
// its two headline sides, the plain and the screened call, alternated:
// the three diagnostic screeners take about a millisecond each and
// leave garbage whose collection lands on whichever call runs next; this
// measures the two sides without it.
func BenchmarkScreening1MiBPair(b *testing.B) {
	benchmarkScreeningCall(b, ToolCall{ID: "bench", Name: "page", Args: json.RawMessage(`{"bytes":1048576}`)}, 1<<20, false)
}

// BenchmarkScreening1MiBPairProse is BenchmarkScreening1MiBPair on prose:
// the fixture's page of this repository's user guides repeated to 1 MiB,
// which reads as a page of documentation does, with the phrase rules'
// anchors ("you", "must", "first", "prompt", "rules", "mode", "now")
// every few dozen words, markdown's special bytes on every line, and
// credential words ("secret", "Bearer", "sk-") that make redaction run
// its token patterns. The fixture's line page has none of these: it is
// the host's cheapest 1 MiB result, this one an ordinary one.
func BenchmarkScreening1MiBPairProse(b *testing.B) {
	benchmarkScreeningCall(b, ToolCall{ID: "bench", Name: "page", Args: json.RawMessage(`{"bytes":1048576,"text":"prose"}`)}, 1<<20, false)
}

func benchmarkScreeningCall(b *testing.B, call ToolCall, n int, diagnostics bool) {
	h := newHarness(b)
	src := h.source(b, "fixture", autoMeta)
	mcpSrc := src
	mcpSrc.Kind, mcpSrc.Name = catalog.SourceMCP, "docs"
	mcpSrc.Tools = append([]catalog.ToolSpec(nil), src.Tools...)
	for i := range mcpSrc.Tools {
		mcpSrc.Tools[i].Provenance = catalog.Provenance{Kind: catalog.SourceMCP, Toolset: "docs"}
	}
	plain := h.turn(b, []string{"fs.read"}, nil, src)
	screened := h.turn(b, []string{"fs.read"}, nil, mcpSrc)
	ctx := context.Background()
	for _, t := range []*Turn{plain, screened} {
		t.Events = handoffSink{h.store}
		t.MaxCalls = 5*b.N + 10 // four of the five sides below call the screened turn
		if out := t.Call(ctx, call); !out.OK() {
			b.Fatal(out.Status, out.Views.Model.String())
		}
	}
	if out := screened.Call(ctx, call); !strings.HasPrefix(out.Views.Model.String(), "<untrusted-data") || len(out.Views.Model.String()) < n {
		b.Fatalf("the screened turn did not wrap the whole result: %d bytes", len(out.Views.Model.String()))
	}
	// Five sides alternate, in a rotating order: the plain turn, the
	// screened turn (untrusted.ScreenFor: by vector masks when built with
	// GOEXPERIMENT=simd, the envelope's boundary found in the same pass),
	// the screened turn with the byte scan (untrusted.ScreenScan, Screen
	// without vector code), with the screener before issue 30's faster
	// scans (package untrusted/oracle), and with a screener that looks at
	// nothing (the envelope alone, its boundary searched for: what
	// screening adds besides the scan). The last three search for the
	// boundary in a pass of their own, as every screener did before.
	type side struct {
		turn     *Turn
		screen   func(s, boundary string) (untrusted.Verdict, int)
		lat, cpu []time.Duration
	}
	// The screener itself, inside the call: its thread's CPU time and
	// its wall time, so the figure shows what is the scan and what is
	// the rest (the envelope, the event, the GC the call's garbage costs).
	var inCPU, inWall []time.Duration
	timed := func(screen func(s, boundary string) (untrusted.Verdict, int)) func(s, boundary string) (untrusted.Verdict, int) {
		return func(s, boundary string) (untrusted.Verdict, int) {
			c0, start := threadCPU(), time.Now()
			v, at := screen(s, boundary)
			inWall, inCPU = append(inWall, time.Since(start)), append(inCPU, threadCPU()-c0)
			return v, at
		}
	}
	// Timed only in a large call: the two clock syscalls would be a
	// good part of what a small one adds.
	screen := untrusted.ScreenFor
	if n >= earlyScreenMin {
		screen = timed(screen)
	}
	sides := []*side{{turn: plain, screen: untrusted.ScreenFor}, {turn: screened, screen: screen},
		{turn: screened, screen: searching(oldScreen)}, {turn: screened, screen: searching(noScreen)},
		{turn: screened, screen: searching(untrusted.ScreenScan)}}
	if !diagnostics {
		sides = sides[:2]
	}
	defer func() { screenText = untrusted.ScreenFor }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range sides {
			sd := sides[(i+k)%len(sides)]
			screenText = sd.screen
			cpu0, start := hostCPU(), time.Now()
			out := sd.turn.Call(ctx, call)
			sd.lat = append(sd.lat, time.Since(start))
			sd.cpu = append(sd.cpu, hostCPU()-cpu0)
			if !out.OK() {
				b.Fatal(out.Status)
			}
		}
	}
	b.StopTimer()
	// Paired by round (the plain and the screened call of one round ran
	// next to each other, so they share the machine's moment): the median
	// of what each screened call added, and of what it added besides its
	// own screener's thread CPU (the envelope, the goroutine and its
	// wake-ups, the verdict in the event, the garbage, and whatever the
	// screener running beside redaction costs the rest of the call). A
	// difference of medians (added-cpu-µs minus screen-cpu-µs) is not
	// that: on a loaded machine it swings by ±150 µs between runs.
	if len(inCPU) == b.N {
		added, outside := make([]time.Duration, b.N), make([]time.Duration, b.N)
		for i := range added {
			added[i] = sides[1].cpu[i] - sides[0].cpu[i]
			outside[i] = added[i] - inCPU[i]
		}
		b.ReportMetric(medianNs(added)/1e3, "paired-added-cpu-µs")
		b.ReportMetric(medianNs(outside)/1e3, "outside-cpu-µs")
	}
	mp, ms := medianNs(sides[0].lat), medianNs(sides[1].lat)
	b.ReportMetric(mp/1e3, "plain-µs")
	b.ReportMetric(ms/1e3, "screened-µs")
	b.ReportMetric((ms-mp)/1e3, "added-µs")
	b.ReportMetric(ms/mp, "ratio")
	// The host process's CPU time per call (every thread: gRPC, the
	// store, GC; the plugin is another process): on a loaded machine the
	// wall-clock medians above carry other engineers' work, CPU time much
	// less of it.
	mcp, mcs := medianNs(sides[0].cpu), medianNs(sides[1].cpu)
	b.ReportMetric(mcp/1e3, "plain-cpu-µs")
	b.ReportMetric(mcs/1e3, "screened-cpu-µs")
	b.ReportMetric((mcs-mcp)/1e3, "added-cpu-µs")
	b.ReportMetric(mcs/mcp, "cpu-ratio")
	if len(inCPU) > 0 {
		b.ReportMetric(medianNs(inCPU)/1e3, "screen-cpu-µs")
		b.ReportMetric(medianNs(inWall)/1e3, "screen-wall-µs")
	}
	if !diagnostics {
		return
	}
	mca := medianNs(sides[2].cpu)
	b.ReportMetric(medianNs(sides[2].lat)/mp, "old-ratio")
	b.ReportMetric((mca-mcp)/1e3, "old-added-cpu-µs")
	b.ReportMetric(mca/mcp, "old-cpu-ratio")
	mcn := medianNs(sides[4].cpu)
	b.ReportMetric((mcn-mcp)/1e3, "scan-added-cpu-µs")
	b.ReportMetric(mcn/mcp, "scan-cpu-ratio")
	b.ReportMetric(medianNs(sides[4].lat)/mp, "scan-ratio")
	mce := medianNs(sides[3].cpu)
	b.ReportMetric((mce-mcp)/1e3, "envelope-added-cpu-µs")
	b.ReportMetric(mce/mcp, "envelope-cpu-ratio")
	b.ReportMetric(medianNs(sides[3].lat)/mp, "envelope-ratio")
}

// searching is screen as a screenText: the boundary found by a search
// of its own, a second pass over the text (as before untrusted.ScreenFor).
func searching(screen func(string) untrusted.Verdict) func(s, boundary string) (untrusted.Verdict, int) {
	return func(s, boundary string) (untrusted.Verdict, int) { return screen(s), strings.Index(s, boundary) }
}

// noScreen finds nothing without looking: the envelope's side.
func noScreen(string) untrusted.Verdict { return untrusted.Verdict{} }

// oldScreen is the screener before issue 30's faster scan, as a
// screenText.
func oldScreen(s string) untrusted.Verdict {
	o := oracle.Screen(s)
	v := untrusted.Verdict{Flagged: o.Flagged}
	for _, sg := range o.Signals {
		v.Signals = append(v.Signals, untrusted.Signal(sg))
	}
	return v
}

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID):
// a goroutine's own, unless the scheduler moved it meanwhile (rare in a
// call this short; the median passes over it).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// hostCPU is this process's user and system CPU time so far.
func hostCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func medianNs(d []time.Duration) float64 {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return float64(d[len(d)/2].Nanoseconds())
}

// The arguments of a call are at most 256 KiB, so echo cannot return
// 1 MiB; BenchmarkScreenVsRedact1MiB measures that size.
func BenchmarkScreening256KiB(b *testing.B) { benchmarkScreening(b, 240<<10) }
func BenchmarkScreening4KiB(b *testing.B)   { benchmarkScreening(b, 4<<10) }

// BenchmarkWrapUntrusted4KiB is what screening adds to a 4 KiB result by
// itself: the scan, the envelope and the verdict in the three map views.
func BenchmarkWrapUntrusted4KiB(b *testing.B) {
	h := newHarness(b)
	turn := h.turn(b, []string{"fs.read"}, nil, h.source(b, "coding", codingMeta))
	turn.UntrustedWorkspaceReads = true
	e, _ := turn.Catalog.Lookup("read_file")
	p := &prepared{entry: e}
	text := webText(4 << 10)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := viewsFor(text)
		turn.wrapUntrusted(p, &v, nil)
	}
}

func viewsFor(text string) (v redact.Views) {
	v.Model = redact.ModelText(text)
	v.Event = redact.EventOf(map[string]any{})
	return v
}

// BenchmarkScreenVsRedact1MiB alternates, on one 1 MiB web-text result,
// the host's redaction of the result (redact.Make: the five views) and
// what screening adds (wrapUntrusted), and reports the ratio of their
// medians: screening against the host's own processing of the result,
// without the plugin, the transport or the audit write.
func BenchmarkScreenVsRedact1MiB(b *testing.B) {
	h := newHarness(b)
	turn := h.turn(b, []string{"fs.read"}, nil, h.source(b, "coding", codingMeta))
	turn.UntrustedWorkspaceReads = true
	e, _ := turn.Catalog.Lookup("read_file")
	p := &prepared{entry: e}
	text := webText(1 << 20)
	raw := redact.Raw{Tool: "web_extract", CallID: "c1", Args: map[string]any{"url": "https://example.com/page"}, Content: text}
	var lr, lw []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		v := redact.Make(raw, nil)
		lr = append(lr, time.Since(start))
		start = time.Now()
		turn.wrapUntrusted(p, &v, nil)
		lw = append(lw, time.Since(start))
	}
	b.StopTimer()
	mr, mw := medianNs(lr), medianNs(lw)
	b.ReportMetric(mr/1e3, "redact-µs")
	b.ReportMetric(mw/1e3, "screen-µs")
	b.ReportMetric(mw/mr, "ratio")
}
