package shellguard

import "testing"

// BenchmarkCheck classifies the whole table; commands/s is the figure the
// guard is held to (at least 50,000 per second on one core).
func BenchmarkCheck(b *testing.B) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, r := range table {
			Check(r.cmd, tableOptions)
		}
		n += len(table)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "commands/s")
}
