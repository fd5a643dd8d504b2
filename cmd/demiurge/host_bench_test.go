package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// BenchmarkHostFigures measures, in one run, the figures BENCHMARKS.md
// records for the long-lived host (run once: -bench HostFigures
// -benchtime 1x, with DEMIURGE_TEST_PLUGIN_DIR=bin after make build):
// a warm one-shot `tools call read_file` process against `--version`,
// the socket's added p50 over an in-process dispatch of the same call,
// 8 front ends x 200 calls, and the host's RSS idle and after 10,000
// calls.
func BenchmarkHostFigures(b *testing.B) {
	dir, state, ws, run := warmHost(b)
	var call, version []time.Duration
	for range 30 {
		call = append(call, run("tools", "call", "read_file", `{"path":"a.txt"}`))
		version = append(version, run("--version"))
	}
	pc, pv := p50(call), p50(version)
	b.ReportMetric(ms(pc), "oneshot-call-p50-ms")
	b.ReportMetric(ms(pv), "version-p50-ms")
	b.ReportMetric(float64(pc)/float64(pv), "oneshot/version")

	// The socket against in-process dispatch of the same call.
	cl, err := hostd.Dial(context.Background(), state, hostd.DialOptions{Config: benchConfig(b, ws, dir)})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	// The same calls on one session's stream (as a conversation sends
	// them): no session opened and recorded per call.
	stream, err := cl.Session(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: &hostv1.OpenSession{}}})
	if _, err := stream.Recv(); err != nil {
		b.Fatal(err)
	}
	var onStream []time.Duration
	for range 300 {
		begin := time.Now()
		stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: "read_file", Args: []byte(`{"path":"a.txt"}`)}}})
		m, err := stream.Recv()
		if err != nil || m.GetOutcome() == nil {
			b.Fatalf("%v %v", m, err)
		}
		onStream = append(onStream, time.Since(begin))
	}
	stream.CloseSend()
	// The in-process reference: a host in this process doing what a
	// one-shot `tools call` does in process (a fresh session, its turn,
	// the call), interleaved call by call with the same call through
	// the socket, so the machine's load falls on both alike.
	h, err := toolhost.Open(toolhost.Options{StateDir: b.TempDir(), Workspace: ws, BuiltinPluginDir: dir, Approver: approval.DenyAll{}})
	if err != nil {
		b.Fatal(err)
	}
	localCall := func(i int, ses *toolhost.Session) {
		turn, err := ses.NewTurnWith(context.Background(), toolhost.TurnOptions{Tool: "read_file", Unrecorded: true})
		if err != nil {
			b.Fatal(err)
		}
		if out := turn.Call(context.Background(), dispatch.ToolCall{ID: "b" + strconv.Itoa(i), Name: "read_file", Args: []byte(`{"path":"a.txt"}`)}); !out.OK() {
			b.Fatal(out.Status)
		}
	}
	var sock, local, diff, rtt []time.Duration
	for i := range 300 {
		// The floor of any exchange with the host process: one unary
		// round trip whose work is in memory (Status), interleaved too.
		begin := time.Now()
		if _, err := cl.Status(context.Background(), &hostv1.StatusRequest{}); err != nil {
			b.Fatal(err)
		}
		rtt = append(rtt, time.Since(begin))
		begin = time.Now()
		if err := readViaHost(cl); err != nil {
			b.Fatal(err)
		}
		sock = append(sock, time.Since(begin))
		begin = time.Now()
		ses := h.OpenSessionAs("", false)
		localCall(i, ses)
		ses.End()
		local = append(local, time.Since(begin))
		diff = append(diff, sock[i]-local[i])
	}
	// On one open stream against one open session.
	one := h.OpenSessionAs("", false)
	var localOne []time.Duration
	for i := range 300 {
		begin := time.Now()
		localCall(i, one)
		localOne = append(localOne, time.Since(begin))
	}
	one.End()
	h.Close()
	ps, pl := p50(sock), p50(local)
	b.ReportMetric(ms(ps), "socket-call-p50-ms")
	b.ReportMetric(ms(pl), "inprocess-call-p50-ms")
	b.ReportMetric(ms(ps-pl), "socket-added-p50-ms")
	b.ReportMetric(ms(p50(diff)), "socket-added-paired-p50-ms")
	b.ReportMetric(ms(p50(rtt)), "status-rtt-p50-ms")
	b.ReportMetric(float64(p50(diff))/float64(p50(rtt)), "socket-added/status-rtt")
	b.ReportMetric(ms(p50(onStream)), "stream-call-p50-ms")
	b.ReportMetric(ms(p50(onStream)-p50(localOne)), "stream-added-p50-ms")

	hostPID, _ := hostd.Running(state)
	b.ReportMetric(float64(rssKiB(hostPID))/1024, "host-rss-idle-MiB")
	b.ReportMetric(float64(rssField(hostPID, "RssAnon:"))/1024, "host-anon-idle-MiB")
	// 8 front ends (8 connections) x 200 calls, at once.
	var errs atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := hostd.Dial(context.Background(), state, hostd.DialOptions{Config: benchConfig(b, ws, dir)})
			if err != nil {
				errs.Add(200)
				return
			}
			defer c.Close()
			for range 200 {
				if readViaHost(c) != nil {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(errs.Load()), "8x200-errors")
	b.ReportMetric(float64(1600)/time.Since(begin).Seconds(), "8x200-calls/s")
	// Up to 10,000 calls in all, then the RSS, then again after a rest.
	for range 10000 - 600 - 1600 - 31 {
		if err := readViaHost(cl); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rssKiB(hostPID))/1024, "host-rss-10k-MiB")
	b.ReportMetric(float64(rssField(hostPID, "RssAnon:"))/1024, "host-anon-10k-MiB")
	b.ReportMetric(float64(rssField(hostPID, "RssFile:"))/1024, "host-file-10k-MiB")
	time.Sleep(30 * time.Second)
	b.ReportMetric(float64(rssKiB(hostPID))/1024, "host-rss-10k+30s-MiB")
	b.ReportMetric(float64(rssField(hostPID, "RssAnon:"))/1024, "host-anon-10k+30s-MiB")
	// The store file's size: bbolt maps it, so its touched pages are in
	// the RSS as file pages (RssFile), not as the heap (RssAnon).
	if fi, err := os.Stat(filepath.Join(state, "demiurge.db")); err == nil {
		b.ReportMetric(float64(fi.Size())/(1<<20), "store-file-MiB")
	}
}

// benchConfig is the host config the benchmark's front ends present.
func benchConfig(b *testing.B, ws, pluginDir string) string {
	lines := []string{"core=", "workspace=" + ws, "plugin-dir=" + pluginDir, "call-timeout=",
		"output-cap-mib=256", "artifact-budget-mib=4096", "sandbox=", "allow-private-mcp=", "timezone="}
	return strings.Join(lines, "\n")
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func rssKiB(pid int) int { return rssField(pid, "VmRSS:") }

// rssField is one of /proc/PID/status's memory lines, in KiB.
func rssField(pid int, field string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// warmHost starts a long-lived host for a benchmark over a new state and
// a workspace holding a.txt, warmed by one `tools call read_file`; run
// runs one `demiurge` process against them and times it. The host stops
// when the benchmark ends.
func warmHost(b *testing.B) (dir, state, ws string, run func(args ...string) time.Duration) {
	dir = os.Getenv("DEMIURGE_TEST_PLUGIN_DIR")
	if dir == "" {
		b.Skip("needs DEMIURGE_TEST_PLUGIN_DIR=bin (make build)")
	}
	// As the host canonicalises --plugin-dir (hostConfig): a relative or
	// unclean path would be refused as another host's options.
	dir, _ = filepath.Abs(dir)
	bin := filepath.Join(dir, "demiurge")
	state, ws = b.TempDir(), b.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("from the workspace\n"), 0o644)
	run = func(args ...string) time.Duration {
		cmd := exec.Command(bin, append([]string{"--state", state, "--workspace", ws}, args...)...)
		cmd.Env = append(os.Environ(), "DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=5m")
		begin := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
		return time.Since(begin)
	}
	b.Cleanup(func() { run("host", "stop") })
	run("tools", "call", "read_file", `{"path":"a.txt"}`) // starts the host, warms the plugins
	return dir, state, ws, run
}

// readViaHost is one one-shot `read_file` of a.txt through the host
// socket, in a fresh session as `tools call` sends it.
func readViaHost(c *hostd.Client) error {
	out, err := callViaHost(context.Background(), c, &hostv1.OpenSession{}, &hostv1.ToolCall{Name: "read_file", Args: []byte(`{"path":"a.txt"}`)},
		func(context.Context, approval.Request) approval.Answer { return approval.Deny })
	if err == nil && !out.OK() {
		err = fmt.Errorf("%s", out.Status)
	}
	return err
}
