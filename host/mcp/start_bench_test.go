package mcp

import (
	"testing"
	"time"

	"demiurge.dev/host/sandboxing"
)

// BenchmarkServerStart is one echo server's connect (start, initialize,
// tools/list) and close, unsandboxed: under the shell guard (no helper,
// the fallback) and under the helper's guard, which ends the processes
// that left the group too. It reports the two halves apart.
func BenchmarkServerStart(b *testing.B) {
	helper := sandboxHelper(b)
	for _, bc := range []struct{ name, helper string }{{"sh-guard", ""}, {"helper-guard", helper}} {
		b.Run(bc.name, func(b *testing.B) {
			var start, stop time.Duration
			for b.Loop() {
				f := newFixtureTB(b, func(c *Config) { c.Sandbox = sandboxing.Config{Helper: bc.helper} })
				f.server("echo", "echo", "")
				f.ask.allow(ConnectTool("echo"))
				t0 := time.Now()
				if r := f.resolve(); len(r.Sources) != 1 {
					b.Fatal(r.States)
				}
				t1 := time.Now()
				f.pool.Close()
				start, stop = start+t1.Sub(t0), stop+time.Since(t1)
			}
			b.ReportMetric(float64(start.Microseconds())/float64(b.N), "start-us/op")
			b.ReportMetric(float64(stop.Microseconds())/float64(b.N), "close-us/op")
		})
	}
}
