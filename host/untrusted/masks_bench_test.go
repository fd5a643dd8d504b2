//go:build goexperiment.simd && amd64

package untrusted

import (
	"runtime"
	"sort"
	"testing"
	"time"
)

// BenchmarkMasksFixturePage1MiB is the mask kernel alone (vectorMasks,
// a chunk at a time, as screenSparse calls it) on the fixture's 1 MiB
// page, in the thread's CPU time: the part of ScreenFor that is the
// vector code, apart from the specials, the words and the rules.
func BenchmarkMasksFixturePage1MiB(b *testing.B) {
	benchKernel(b, vectorMasks)
}

// BenchmarkAVX2Kernels is BenchmarkMasksFixturePage1MiB for each AVX2
// kernel, in one binary: the Go reference (avx2Masks), its assembly
// (avx2MasksAsm).
func BenchmarkAVX2Kernels(b *testing.B) {
	if !haveAVX2Asm {
		b.Skip("no AVX2 with POPCNT")
	}
	b.Run("go", func(b *testing.B) { benchKernel(b, avx2Masks) })
	b.Run("asm", func(b *testing.B) { benchKernel(b, avx2MasksAsm) })
}

func benchKernel(b *testing.B, vectorMasks func(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int) {
	s := fixturePage(1 << 20)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var letter, special, anchor [chunkBlocks]uint64
	var cpu []time.Duration
	sink := 0
	for b.Loop() {
		c0 := threadCPU()
		nb := (len(s) + 63) / 64
		for b0 := 0; b0 < nb; b0 += chunkBlocks {
			n := min(chunkBlocks, nb-b0)
			sum := chunkSum{first: 'Q'}
			sink += vectorMasks(s, b0, letter[:n], special[:n], anchor[:n], &sum) + sum.words
		}
		cpu = append(cpu, threadCPU()-c0)
	}
	if sink < 0 {
		b.Fatal(sink)
	}
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	b.ReportMetric(float64(cpu[len(cpu)/2].Nanoseconds())/1e3, "kernel-cpu-µs")
}
