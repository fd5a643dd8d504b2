package terminal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchBytes is the size of the bulk-output benchmark: 2 GiB, or
// TERMINAL_BENCH_MIB MiB for a quicker look.
var benchBytes = func() int64 {
	if n, err := strconv.Atoi(os.Getenv("TERMINAL_BENCH_MIB")); err == nil && n > 0 {
		return int64(n) << 20
	}
	return 2 << 30
}()

// benchLine is ordinary log-like text, so that the redactor meets the
// first bytes of its secrets all the time, as it would in real output.
const benchLine = "2026-11-30T12:00:00Z INFO build step 42 of 97: compiling package demiurge.dev/host/dispatch ok\n"

func benchSecrets(n int) map[string]string {
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	out := make(map[string]string, n)
	for i := range n {
		b := make([]byte, 24+rng.IntN(17))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		out["SECRET_"+strconv.Itoa(i)] = string(b)
	}
	return out
}

// generator prints benchBytes of benchLine text on stdout.
func generator() string {
	return fmt.Sprintf("yes %q | head -c %d", strings.TrimSuffix(benchLine, "\n"), benchBytes)
}

// countingEmitter drops chunks and artifacts, counting the chunk bytes.
type countingEmitter struct {
	bytes int64
	first time.Time
}

func (c *countingEmitter) Output(_ string, data []byte) error {
	if c.first.IsZero() {
		c.first = time.Now()
	}
	c.bytes += int64(len(data))
	return nil
}
func (c *countingEmitter) Artifact(string, string, int64, string) error { return nil }

// resetPeakRSS clears the process's high-water mark so VmHWM measures what
// follows (writing 5 to clear_refs; Linux 4.0+).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMiB reads VmHWM from /proc/self/status.
func peakRSSMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return -1
}

func shellTime(b *testing.B, script string) time.Duration {
	b.Helper()
	start := time.Now()
	if out, err := exec.Command("/bin/bash", "-c", script).CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", script, err, out)
	}
	return time.Since(start)
}

// BenchmarkDrain2GiB runs a command writing 2 GiB to stdout through the
// whole plugin-side path (drain, redaction with 100 bound secrets, the
// artifact file with its final fsync, tail and counts, bounded chunks),
// and, in the same run, the same generator piped through cat into a file
// on the same disk, with and without an fsync of that file. It reports
// throughput, the ratios to cat, and the process's peak RSS during the
// drain.
func BenchmarkDrain2GiB(b *testing.B) {
	dir := b.TempDir()
	secrets := benchSecrets(100)
	rn := NewRunner()
	env := []string{"PATH=/usr/bin:/bin", "LANG=C"}
	var drain, cat, catSync time.Duration
	var peak float64
	for i := range b.N {
		root := filepath.Join(dir, "artifacts", strconv.Itoa(i))
		em := &countingEmitter{}
		resetPeakRSS()
		start := time.Now()
		res, err := rn.Run(context.Background(), Request{Command: generator(), Dir: dir, Env: env, Secrets: secrets, Timeout: 10 * time.Minute, ArtifactRoot: root, Emit: em})
		drain += time.Since(start)
		peak = max(peak, peakRSSMiB())
		if err != nil || res.ExitCode != 0 || res.Stdout.Bytes != benchBytes || res.Error != "" {
			b.Fatalf("run: %v %+v", err, res)
		}
		_ = os.RemoveAll(root)
		out := filepath.Join(dir, "cat.out")
		cat += shellTime(b, generator()+" | cat > "+out)
		_ = os.Remove(out)
		catSync += shellTime(b, generator()+" | cat > "+out+" && sync "+out)
		_ = os.Remove(out)
	}
	mbps := func(d time.Duration) float64 { return float64(benchBytes) * float64(b.N) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(drain), "drain_MB/s")
	b.ReportMetric(mbps(cat), "cat_MB/s")
	b.ReportMetric(mbps(catSync), "cat+sync_MB/s")
	b.ReportMetric(cat.Seconds()/drain.Seconds(), "ratio_vs_cat")
	b.ReportMetric(catSync.Seconds()/drain.Seconds(), "ratio_vs_cat+sync")
	b.ReportMetric(peak, "peak_RSS_MiB")
}

// BenchmarkRawPipe is the pipe's own limit on this machine, for reference:
// dd if=/dev/zero bs=1M count=2048 | dd of=/dev/null.
func BenchmarkRawPipe(b *testing.B) {
	var d time.Duration
	for range b.N {
		d += shellTime(b, "dd if=/dev/zero bs=1M count=2048 status=none | dd of=/dev/null bs=1M status=none")
	}
	b.ReportMetric(float64(2<<30)*float64(b.N)/d.Seconds()/1e6, "pipe_MB/s")
}

// BenchmarkSpawnToFirstByte measures, for `echo x`, the time from Run to
// the first output chunk handed to the host, and reports p50 and p99.
func BenchmarkSpawnToFirstByte(b *testing.B) {
	dir := b.TempDir()
	rn := NewRunner()
	lat := make([]time.Duration, 0, b.N)
	for i := range b.N {
		em := &countingEmitter{}
		start := time.Now()
		res, err := rn.Run(context.Background(), Request{Command: "echo x", Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute,
			ArtifactRoot: filepath.Join(dir, strconv.Itoa(i)), Emit: em})
		if err != nil || res.ExitCode != 0 || em.first.IsZero() {
			b.Fatalf("run: %v %+v", err, res)
		}
		lat = append(lat, em.first.Sub(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99_ms")
}
