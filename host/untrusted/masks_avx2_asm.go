//go:build goexperiment.simd && amd64

package untrusted

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveAVX2Asm: the AVX2 kernel in assembly (masks_avx2_amd64.s) runs
// here. Every AVX2 CPU has POPCNT and BMI1 (Intel since Haswell, AMD
// since Excavator), but the kernel uses them without the check the
// compiler puts before bits.OnesCount64, so it asks.
var haveAVX2Asm = haveAVX2 && cpu.X86.HasPOPCNT && cpu.X86.HasBMI1

// avx2MasksAsm is avx2Masks (masks_avx2.go, the reference: same
// tables, same bits; the steps the same but for the slots k places
// on, which it stores and loads back, avx2Blocks' comment) written in
// assembly, where the Go compiler's code reloaded 14 of its then 15
// constant vectors every block and kept its scalars on the stack
// (BENCHMARKS.md, stop 55). It checks the bounds and hands the blocks to
// avx2Blocks.
func avx2MasksAsm(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	n := asmBlocks(s, from, len(letter))
	if n == 0 {
		return 0
	}
	special, anchor = special[:n], anchor[:n]
	p := unsafe.StringData(s[64*from:])
	// avx2Blocks does 64 blocks at most (its frame holds their slots);
	// a chunk is 64. Past 64, a block has no anchored or withSpecial
	// bit (avx2Masks: a shift by 64 or more is 0).
	for b := 0; b < n; b += chunkBlocks {
		k, anchored, withSpecial := min(n-b, chunkBlocks), sum.anchored, sum.withSpecial
		avx2Blocks((*byte)(unsafe.Add(unsafe.Pointer(p), 64*b)), k, &letter[b], &special[b], &anchor[b], sum, &markupQuick)
		if b > 0 {
			sum.anchored, sum.withSpecial = anchored, withSpecial
		}
	}
	return n
}

// avx2Blocks computes the masks of n blocks (1 to 64) from p
// (p+64*n+64 readable) into letter[:n], special[:n] and anchor[:n],
// and adds them up into sum, as avx2Masks does.
//
//go:noescape
func avx2Blocks(p *byte, n int, letter, special, anchor *uint64, sum *chunkSum, quick *[4096]uint8)

// asmBlocks is how many of at most limit blocks from block from an
// assembly kernel may do: those whose next block is inside s too
// (i+128 <= len(s)), as the kernels read it.
func asmBlocks(s string, from, limit int) int {
	if len(s) < 64*from+128 {
		return 0
	}
	return min(limit, (len(s)-64*from-64)/64)
}
