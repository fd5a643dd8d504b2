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
// p50-ms and p99-ms are its percentiles.
//
// demiurge is bin/demiurge, the launcher, which answers from the catalog
// snapshot; demiurge-host is the full host answering the same command from
// its describe cache, for comparison. Every run logs at debug level, where
// the host logs each plugin it starts; the cold run that fills the caches
// must be seen starting its plugin (so the check can fail), and no timed
// run may start one. For the launcher, no timed run may reach the host at
// all: its log file, removed after the cold run, must not reappear.
func BenchmarkToolsListWarm(b *testing.B) {
	dir := builtBinariesWithPlugins(b)
	for _, binary := range []string{"demiurge", "demiurge-host"} {
		b.Run(binary, func(b *testing.B) { benchToolsListWarm(b, filepath.Join(dir, binary), binary == "demiurge") })
	}
}

func benchToolsListWarm(b *testing.B, bin string, launcher bool) {
	state, ws := b.TempDir(), b.TempDir()
	logFile := filepath.Join(state, "logs", "host.log")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "DEMIURGE_LOG_LEVEL=debug"}
	run := func() {
		cmd := exec.Command(bin, "--state", state, "--workspace", ws, "tools", "list")
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

	run() // cold: fills the describe cache through the plugin, and the snapshot
	if n := starts(); n != 1 {
		b.Fatalf("the cold run logged %d plugin starts, want 1: the check for warm runs would see nothing", n)
	}
	if launcher {
		if err := os.Remove(logFile); err != nil {
			b.Fatal(err)
		}
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
	if launcher {
		if _, err := os.Stat(logFile); err == nil {
			b.Fatalf("warm runs of the launcher reached the full host (it wrote %s): the snapshot was not used", logFile)
		}
	} else if n := starts(); n != 1 {
		b.Fatalf("warm runs started %d plugin(s); with a warm describe cache tools list must start none", n-1)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(float64(len(lat)-1)*p)]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// builtBinariesWithPlugins is the directory `make build` filled
// (DEMIURGE_TEST_PLUGIN_DIR: the launcher, the full host and the built-in
// plugins), else one built here the same way.
func builtBinariesWithPlugins(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); dir != "" {
		dir, err := filepath.Abs(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"demiurge", "demiurge-host"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				b.Fatalf("DEMIURGE_TEST_PLUGIN_DIR has no %s binary (run make build): %v", name, err)
			}
		}
		return dir
	}
	dir := b.TempDir()
	for name, pkg := range map[string]string{"coding": "demiurge.dev/plugins/coding", "demiurge_control": "demiurge.dev/plugins/control"} {
		if err := plugintest.Build(dir, name, pkg); err != nil {
			b.Fatal(err)
		}
	}
	for out, pkg := range map[string]string{"demiurge-host": ".", "demiurge": "demiurge.dev/cmd/launcher"} {
		if msg, err := exec.Command("go", "build", "-o", filepath.Join(dir, out), pkg).CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", pkg, err, msg)
		}
	}
	return dir
}
