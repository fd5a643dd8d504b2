package shellguard

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkCheck classifies the whole table; commands/s is the figure the
// guard is held to (at least 50,000 per second on one core). Run it with
// -cpu 1. commands/cpu-s divides by the process's CPU time instead of
// wall time, which stays honest on a machine shared with other work.
func BenchmarkCheck(b *testing.B) {
	b.ReportAllocs()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		for _, r := range table {
			Check(r.cmd, tableOptions)
		}
		n += len(table)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "commands/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu.Seconds(), "commands/cpu-s")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
