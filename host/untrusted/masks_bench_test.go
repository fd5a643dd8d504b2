//go:build goexperiment.simd && amd64

package untrusted

import (
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkMasksFixturePage1MiB is the mask kernel alone (vectorMasks,
// a chunk at a time, as screenSparse calls it) on the fixture's 1 MiB
// page, in the thread's CPU time: the part of ScreenFor that is the
// vector code, apart from the specials, the words and the rules.
func BenchmarkMasksFixturePage1MiB(b *testing.B) {
	benchKernel(b, fixturePage(1<<20), vectorMasks)
}

// BenchmarkAVX2Kernels is BenchmarkMasksFixturePage1MiB for each AVX2
// kernel, in one binary: the Go reference (avx2Masks), its assembly
// (avx2MasksAsm).
func BenchmarkAVX2Kernels(b *testing.B) {
	if !haveAVX2Asm {
		b.Skip("no AVX2 with POPCNT")
	}
	b.Run("go", func(b *testing.B) { benchKernel(b, fixturePage(1<<20), avx2Masks) })
	b.Run("asm", func(b *testing.B) { benchKernel(b, fixturePage(1<<20), avx2MasksAsm) })
}

// BenchmarkVBMIKernels is BenchmarkMasksFixturePage1MiB for each VBMI
// kernel, in one binary: the Go reference (vbmiMasks), its assembly
// (vbmiMasksAsm).
func BenchmarkVBMIKernels(b *testing.B) {
	if !haveVBMIAsm {
		b.Skip("no AVX-512 VBMI with POPCNT and BMI1")
	}
	b.Run("go", func(b *testing.B) { benchKernel(b, fixturePage(1<<20), vbmiMasks) })
	b.Run("asm", func(b *testing.B) { benchKernel(b, fixturePage(1<<20), vbmiMasksAsm) })
}

// BenchmarkAVX2KernelsCurly is BenchmarkAVX2Kernels on prose with curly
// quotes, apostrophes and dashes (each led by 0xE2, 5.4 a block): the
// assembly judges lead bytes in its markup loop, one by one.
func BenchmarkAVX2KernelsCurly(b *testing.B) {
	if !haveAVX2Asm {
		b.Skip("no AVX2 with POPCNT")
	}
	b.Run("go", func(b *testing.B) { benchKernel(b, curlyPage(1<<20), avx2Masks) })
	b.Run("asm", func(b *testing.B) { benchKernel(b, curlyPage(1<<20), avx2MasksAsm) })
}

// BenchmarkAVX2KernelsCold is the assembly kernel on the fixture page
// copied just before each run (outside the timing), as a result is
// decoded just before it is screened: the runtime copies a megabyte or
// more with non-temporal stores, so the page is in memory, not cache.
func BenchmarkAVX2KernelsCold(b *testing.B) {
	if !haveAVX2Asm {
		b.Skip("no AVX2 with POPCNT")
	}
	b.Run("warm", func(b *testing.B) { benchKernel(b, fixturePage(1<<20), avx2MasksAsm) })
	b.Run("cold", func(b *testing.B) { benchKernelOn(b, fixturePage(1<<20), strings.Clone, avx2MasksAsm) })
}

func curlyPage(n int) string {
	line := "The model’s “guide” says — in short — what it’s for; don’t skip it.\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

func benchKernel(b *testing.B, s string, vectorMasks func(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int) {
	benchKernelOn(b, s, func(s string) string { return s }, vectorMasks)
}

// benchKernelOn is benchKernel on fresh(s), made before each run.
func benchKernelOn(b *testing.B, page string, fresh func(string) string, vectorMasks func(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var letter, special, anchor [chunkBlocks]uint64
	var cpu []time.Duration
	sink := 0
	for b.Loop() {
		s := fresh(page)
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
	b.ReportMetric(float64(cpu[len(cpu)/10].Nanoseconds())/1e3, "kernel-cpu-p10-µs")
}
