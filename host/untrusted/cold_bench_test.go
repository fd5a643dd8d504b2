package untrusted

import (
	"runtime"
	"sort"
	"testing"
	"time"
)

// BenchmarkScreenAfterOtherCode is ScreenFor on 1 MiB as a call runs it:
// right after other code, which leaves the branch predictor little of
// the screener's. In the host a 1 MiB result's screening comes after
// some milliseconds of gRPC, protobuf and redaction; here, after a loop
// of branches on random bits (unpredictable, so the predictor fills
// with them). The screener's branches on the text (a candidate is an
// anchor or not, a block holds one candidate or three) then mispredict
// as often as their outcomes are random, where in a loop of ScreenFor
// the predictor has learnt them, over other texts too (stop 64: on the
// guides ~100 µs a pass in a loop, ~200 after other code, either random
// branches or JSON decoding, a regular expression and a sort; a second
// pass right after ~125). cold-µs is the median of the first passes,
// warm-µs of the second, each in thread CPU time. A change that trades
// branches for instructions moves the two apart; compare it with the
// code before in several code layouts (docs/architecture.md, timing the
// screener).
func BenchmarkScreenAfterOtherCode(b *testing.B) {
	for _, page := range []struct {
		name string
		s    string
	}{{"guides", guidesPage(b, 1<<20)}, {"prose", prosePage(b, 1<<20)}, {"npm", npmPage(1 << 20)}} {
		b.Run(page.name, func(b *testing.B) {
			if page.s == "" {
				b.Skip("no " + npmDocs)
			}
			screenAfterOtherCode(b, page.s)
		})
	}
}

func screenAfterOtherCode(b *testing.B, s string) {
	bd := NewBoundary()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cold, warm []time.Duration
	sink := 0
	for b.Loop() {
		sink += randomBranches(1 << 21)
		c0 := threadCPU()
		v, at := ScreenFor(s, bd)
		c1 := threadCPU()
		w, _ := ScreenFor(s, bd)
		c2 := threadCPU()
		cold, warm = append(cold, c1-c0), append(warm, c2-c1)
		sink += len(v.Signals) + at + len(w.Signals)
	}
	if sink == -1 {
		b.Log(sink)
	}
	c, w := medianOf(cold), medianOf(warm)
	b.ReportMetric(float64(c)/1e3, "cold-µs")
	b.ReportMetric(float64(w)/1e3, "warm-µs")
	b.ReportMetric(float64(c)/float64(w), "cold/warm")
}

// randomBranches runs n turns of a loop with three branches on the bits
// of a xorshift sequence, none of which can be predicted (each guards a
// store, so that the compiler cannot make it a conditional move).
func randomBranches(n int) int {
	var t [16]int
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		if x&1 != 0 {
			t[x>>60]++
		}
		if x&6 == 2 {
			t[x>>56&15] += 3
		}
		if x&0x30 != 0 {
			t[x>>52&15] ^= 5
		}
	}
	return t[0] + t[15]
}

func medianOf(d []time.Duration) time.Duration {
	d = append([]time.Duration(nil), d...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}
