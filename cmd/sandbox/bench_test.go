package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// BenchmarkSpawnFirstByte: from Start to the first byte of a trivial
// command's output, unconfined and through the helper, in the same run;
// p50/p95 are reported per mode. "big-ws" adds 10,000 files to the
// workspace (the helper scans it for sensitive files on every start).
func BenchmarkSpawnFirstByte(b *testing.B) {
	f := newFixture(b)
	big := newFixture(b)
	for i := range 100 {
		d := filepath.Join(big.ws, "src", fmt.Sprintf("d%03d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 100 {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d.go", j)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	type benchCase struct {
		name   string
		f      fixture
		mode   sandbox.Mode
		cold   bool   // forget the scan cache before every start (the old per-start walk)
		helper string // another helper build, to compare in the same run
		direct bool   // the second stage started by this process (see withoutFirstStage)
	}
	cases := []benchCase{
		{name: "off", f: f, mode: sandbox.Off},
		{name: "read-only", f: f, mode: sandbox.ReadOnly},
		{name: "workspace-write", f: f, mode: sandbox.WorkspaceWrite},
		{name: "workspace-write-big-ws", f: big, mode: sandbox.WorkspaceWrite},
		{name: "workspace-write-big-ws-cold-scan", f: big, mode: sandbox.WorkspaceWrite, cold: true},
		{name: "network", f: f, mode: sandbox.Network}, // through the fixture's egress proxy
	}
	// DEMIURGE_BENCH_BASELINE_HELPER: an older helper build (e.g. of the
	// commit before a change), measured in the same run for a before/after.
	if base := os.Getenv("DEMIURGE_BENCH_BASELINE_HELPER"); base != "" {
		cases = append(cases, benchCase{name: "baseline-read-only", f: f, mode: sandbox.ReadOnly, helper: base},
			benchCase{name: "baseline-workspace-write", f: f, mode: sandbox.WorkspaceWrite, helper: base},
			benchCase{name: "baseline-network", f: f, mode: sandbox.Network, helper: base})
	}
	// What a start without the first stage would cost (a floor for a warm
	// first stage): this test process, dumpable unlike the host, can
	// write the uid map of a child in new namespaces itself.
	cases = append(cases, benchCase{name: "read-only-no-first-stage", f: f, mode: sandbox.ReadOnly, direct: true},
		benchCase{name: "workspace-write-no-first-stage", f: f, mode: sandbox.WorkspaceWrite, direct: true})
	for _, c := range cases {
		helper := helperBin
		if c.helper != "" {
			helper = c.helper
		}
		b.Run(c.name, func(b *testing.B) {
			var ds []time.Duration
			p := c.f.policy(c.mode)
			for b.Loop() {
				if c.cold {
					sandbox.ForgetSensitiveScans()
				}
				// The clock includes Wrap: the launcher's scan is start cost.
				start := time.Now()
				cmd := exec.Command("/bin/echo", "x")
				cmd.Dir, cmd.Env = c.f.ws, []string{"PATH=/usr/bin:/bin"}
				if err := wrapFor(cmd, helper, p); err != nil {
					b.Fatal(err)
				}
				if c.direct {
					withoutFirstStage(b, cmd, p)
				}
				out, err := cmd.StdoutPipe()
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				var one [1]byte
				if _, err := io.ReadFull(out, one[:]); err != nil {
					b.Fatalf("no first byte: %v", err)
				}
				ds = append(ds, time.Since(start))
				io.Copy(io.Discard, out)
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkDrain: how fast the output of a command that writes 256 MiB
// is drained from its pipe, unconfined and sandboxed.
func BenchmarkDrain(b *testing.B) {
	f := newFixture(b)
	const size = 256 << 20
	for _, m := range []sandbox.Mode{sandbox.Off, sandbox.WorkspaceWrite} {
		b.Run(string(m), func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				cmd := exec.Command("/usr/bin/head", "-c", fmt.Sprint(size), "/dev/zero")
				cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
				if err := sandbox.Wrap(cmd, helperBin, f.policy(m)); err != nil {
					b.Fatal(err)
				}
				out, err := cmd.StdoutPipe()
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, out, make([]byte, 1<<20))
				if err != nil || n != size {
					b.Fatalf("drained %d bytes: %v", n, err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSpawnBeforeAfter: spawn to first byte of this helper and of
// DEMIURGE_BENCH_BASELINE_HELPER (an older build), started alternately in
// one loop so that both see the same load; p50 of each and of the
// difference, workspace-write (or DEMIURGE_BENCH_MODE). A baseline helper
// of another build is wrapped as its own launcher wrapped it (wrapFor).
func BenchmarkSpawnBeforeAfter(b *testing.B) {
	base := os.Getenv("DEMIURGE_BENCH_BASELINE_HELPER")
	if base == "" {
		b.Skip("DEMIURGE_BENCH_BASELINE_HELPER names no baseline helper")
	}
	f := newFixture(b)
	mode := sandbox.WorkspaceWrite
	if m := os.Getenv("DEMIURGE_BENCH_MODE"); m != "" {
		mode = sandbox.Mode(m) // network: through the fixture's egress proxy
	}
	p := f.policy(mode)
	// DEMIURGE_BENCH_AFTER=no-first-stage: this helper's side starts its
	// second stage directly (withoutFirstStage), to measure what the first
	// stage costs against a copy of this helper as the baseline.
	direct := os.Getenv("DEMIURGE_BENCH_AFTER") == "no-first-stage"
	// cpu: user+system time of the whole start (helper stages and echo, as
	// wait4 reports it), which a loaded machine disturbs far less than
	// wall time.
	var cpuAfter, cpuBefore []time.Duration
	once := func(helper string) time.Duration {
		start := time.Now()
		cmd := exec.Command("/bin/echo", "x")
		cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
		if err := wrapFor(cmd, helper, p); err != nil {
			b.Fatal(err)
		}
		if direct && helper == helperBin {
			withoutFirstStage(b, cmd, p)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var one [1]byte
		if _, err := io.ReadFull(out, one[:]); err != nil {
			b.Fatalf("no first byte: %v", err)
		}
		d := time.Since(start)
		io.Copy(io.Discard, out)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if helper == helperBin {
			cpuAfter = append(cpuAfter, cpu)
		} else {
			cpuBefore = append(cpuBefore, cpu)
		}
		return d
	}
	var after, before, diff []time.Duration
	i := 0
	for b.Loop() {
		var a, o time.Duration
		if i%2 == 0 {
			a, o = once(helperBin), once(base)
		} else {
			o, a = once(base), once(helperBin)
		}
		i++
		after, before, diff = append(after, a), append(before, o), append(diff, a-o)
	}
	p50 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	b.ReportMetric(p50(before), "before-p50-ms")
	b.ReportMetric(p50(after), "after-p50-ms")
	b.ReportMetric(p50(diff), "diff-p50-ms")
	b.ReportMetric(p50(cpuBefore), "cpu-before-p50-ms")
	b.ReportMetric(p50(cpuAfter), "cpu-after-p50-ms")
}

// wrapFor is sandbox.Wrap, and for an older helper build (a baseline) the
// command line and environment as the launcher of that build made them:
// without what this launcher adds for the helper's own start (the policy's
// helper_env, which an older helper refuses as unknown, and its entries).
func wrapFor(cmd *exec.Cmd, helper string, p sandbox.Policy) error {
	if err := sandbox.Wrap(cmd, helper, p); err != nil || helper == helperBin || knowsHelperEnv(helper) {
		return err
	}
	for i, a := range cmd.Args {
		if a != "--policy" || i+1 >= len(cmd.Args) {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(cmd.Args[i+1]), &m); err != nil {
			return err
		}
		added, _ := m["helper_env"].([]any)
		delete(m, "helper_env")
		enc, err := json.Marshal(m)
		if err != nil {
			return err
		}
		cmd.Args[i+1] = string(enc)
		for _, e := range added {
			if j := slices.Index(cmd.Env, e.(string)); j >= 0 {
				cmd.Env = slices.Delete(cmd.Env, j, j+1)
			}
		}
		return nil
	}
	return fmt.Errorf("no --policy in %q", cmd.Args)
}

var helperEnvKnown sync.Map // helper path -> bool

// knowsHelperEnv: whether a helper build reads the policy's helper_env
// (an older one refuses it as an unknown field before anything else).
func knowsHelperEnv(helper string) bool {
	if v, ok := helperEnvKnown.Load(helper); ok {
		return v.(bool)
	}
	out, _ := exec.Command(helper, "--policy", `{"helper_env":["GOMAXPROCS=1"]}`, "--", "/bin/true").CombinedOutput()
	knows := !strings.Contains(string(out), `unknown field "helper_env"`)
	helperEnvKnown.Store(helper, knows)
	return knows
}

// withoutFirstStage turns a wrapped command into a direct start of the
// helper's second stage in new namespaces (what the first stage does).
func withoutFirstStage(b *testing.B, cmd *exec.Cmd, p sandbox.Policy) {
	switch {
	case len(cmd.Args) >= 3 && cmd.Args[1] == "--spawn": // helper --spawn NET ...
		cmd.Args = append([]string{cmd.Args[0]}, cmd.Args[3:]...)
	case len(cmd.Args) >= 3 && filepath.Base(cmd.Path) == sandbox.FirstStageName: // first HELPER NET ...
		cmd.Path, cmd.Args = cmd.Args[1], append([]string{cmd.Args[1]}, cmd.Args[3:]...)
	default:
		b.Fatalf("not a wrapped command: %q", cmd.Args)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sandbox.SetNamespaces(cmd.SysProcAttr, p.Mode.Offline())
}
