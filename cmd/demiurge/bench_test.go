package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/plugins/plugintest"
)

// BenchmarkToolsListWarm is `demiurge tools list` as an operator runs it:
// a fresh process of the built binary per iteration, with a warm describe
// cache, so no plugin may be started. ns/op is the wall time of one run;
// p50-ms and p99-ms are its percentiles. Every run logs at debug level,
// where go-plugin logs each plugin it starts; the benchmark fails if any
// timed run started one, and first checks that the cold run that fills the
// cache is seen starting its plugin, so the check can fail.
func BenchmarkToolsListWarm(b *testing.B) {
	bin := builtBinaryWithPlugins(b)
	state, ws := b.TempDir(), b.TempDir()
	logFile := filepath.Join(state, "logs", "host.log")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir()}
	run := func() {
		cmd := exec.Command(bin, "--state", state, "--workspace", ws, "--log-level", "debug", "tools", "list")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "read_file") {
			b.Fatalf("tools list: %v\n%s", err, out)
		}
	}
	starts := func() int {
		data, err := os.ReadFile(logFile)
		if err != nil {
			b.Fatal(err)
		}
		return strings.Count(string(data), "starting plugin")
	}

	run() // cold: fills the describe cache through the plugin
	if n := starts(); n != 1 {
		b.Fatalf("the cold run logged %d plugin starts, want 1: the check for warm runs would see nothing", n)
	}
	run() // warm the page cache as well
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		run()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	if n := starts(); n != 1 {
		b.Fatalf("warm runs started %d plugin(s); with a warm describe cache tools list must start none", n-1)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(float64(len(lat)-1)*p)]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// builtBinaryWithPlugins is the binary `make build` made (DEMIURGE_TEST_PLUGIN_DIR
// names its directory, which holds the built-in plugins too), else one
// built here beside a freshly built coding plugin.
func builtBinaryWithPlugins(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); dir != "" {
		bin, err := filepath.Abs(filepath.Join(dir, "demiurge"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(bin); err != nil {
			b.Fatalf("DEMIURGE_TEST_PLUGIN_DIR has no demiurge binary (run make build): %v", err)
		}
		return bin
	}
	dir := b.TempDir()
	if err := plugintest.Build(dir, "coding", "demiurge.dev/plugins/coding"); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "demiurge")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build demiurge: %v\n%s", err, out)
	}
	return bin
}
