//go:build goexperiment.simd && amd64

package untrusted

import (
	"math/bits"
	"simd/archsimd"
	"testing"
	"time"
	"unsafe"
)

// simdWords counts the letter runs of s as countWords does, 32 bytes at
// a time with AVX2 (GOEXPERIMENT=simd): how cheap splitting words could
// be with vector instructions. An experiment for issue 30's figures,
// built only under that experiment.
func simdWords(s string) int {
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	fold, a, z := archsimd.BroadcastUint8x32(0x20), archsimd.BroadcastUint8x32('a'), archsimd.BroadcastUint8x32(26)
	n, carry := 0, uint32(0)
	i := 0
	for ; i+32 <= len(b); i += 32 {
		x := archsimd.LoadUint8x32((*[32]uint8)(b[i : i+32]))
		l := x.Or(fold).Sub(a).Less(z).ToBits()
		n += bits.OnesCount32(l &^ (l<<1 | carry))
		carry = l >> 31
	}
	for ; i < len(s); i++ {
		l := uint32(0)
		if class[s[i]] == clsLetter {
			l = 1
		}
		n += int(l &^ carry)
		carry = l
	}
	return n
}

func TestSIMDWordsCount(t *testing.T) {
	for _, s := range []string{benchPage(1 << 20), benchPage(4 << 10), "a", "ab cd", "Zé9x"} {
		if got, want := simdWords(s), countWords(s); got != want {
			t.Fatalf("%d words, want %d", got, want)
		}
	}
}

// BenchmarkSIMDWords1MiB alternates simdWords and countWords on the
// 1 MiB page in thread CPU time.
func BenchmarkSIMDWords1MiB(b *testing.B) {
	s := benchPage(1 << 20)
	var ds, dc []time.Duration
	sink := 0
	for b.Loop() {
		c0 := threadCPU()
		sink += simdWords(s)
		c1 := threadCPU()
		sink += countWords(s)
		c2 := threadCPU()
		ds, dc = append(ds, c1-c0), append(dc, c2-c1)
	}
	if sink < 0 {
		b.Fatal()
	}
	med := func(d []time.Duration) float64 {
		for i := range d {
			for j := i + 1; j < len(d); j++ {
				if d[j] < d[i] {
					d[i], d[j] = d[j], d[i]
				}
			}
		}
		return float64(d[len(d)/2].Nanoseconds())
	}
	ms, mc := med(ds), med(dc)
	b.ReportMetric(ms/1e3, "simd-cpu-µs")
	b.ReportMetric(mc/1e3, "scalar-cpu-µs")
}
