package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	}
	cases := []benchCase{
		{"off", f, sandbox.Off, false, ""},
		{"read-only", f, sandbox.ReadOnly, false, ""},
		{"workspace-write", f, sandbox.WorkspaceWrite, false, ""},
		{"workspace-write-big-ws", big, sandbox.WorkspaceWrite, false, ""},
		{"workspace-write-big-ws-cold-scan", big, sandbox.WorkspaceWrite, true, ""},
		{"network", f, sandbox.Network, false, ""}, // through the fixture's egress proxy
	}
	// DEMIURGE_BENCH_BASELINE_HELPER: an older helper build (e.g. of the
	// commit before a change), measured in the same run for a before/after.
	if base := os.Getenv("DEMIURGE_BENCH_BASELINE_HELPER"); base != "" {
		cases = append(cases, benchCase{"baseline-read-only", f, sandbox.ReadOnly, false, base},
			benchCase{"baseline-workspace-write", f, sandbox.WorkspaceWrite, false, base},
			benchCase{"baseline-network", f, sandbox.Network, false, base})
	}
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
				if err := sandbox.Wrap(cmd, helper, p); err != nil {
					b.Fatal(err)
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
// difference, workspace-write (or DEMIURGE_BENCH_MODE).
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
	// cpu: user+system time of the whole start (helper stages and echo, as
	// wait4 reports it), which a loaded machine disturbs far less than
	// wall time.
	var cpuAfter, cpuBefore []time.Duration
	once := func(helper string) time.Duration {
		start := time.Now()
		cmd := exec.Command("/bin/echo", "x")
		cmd.Dir, cmd.Env = f.ws, []string{"PATH=/usr/bin:/bin"}
		if err := sandbox.Wrap(cmd, helper, p); err != nil {
			b.Fatal(err)
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
