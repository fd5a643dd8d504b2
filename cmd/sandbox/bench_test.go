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
	for _, c := range []struct {
		name string
		f    fixture
		mode sandbox.Mode
		cold bool // forget the scan cache before every start (the old per-start walk)
	}{
		{"off", f, sandbox.Off, false},
		{"read-only", f, sandbox.ReadOnly, false},
		{"workspace-write", f, sandbox.WorkspaceWrite, false},
		{"workspace-write-big-ws", big, sandbox.WorkspaceWrite, false},
		{"workspace-write-big-ws-cold-scan", big, sandbox.WorkspaceWrite, true},
	} {
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
				if err := sandbox.Wrap(cmd, helperBin, p); err != nil {
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
