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
// tables, same steps, same bits) written in assembly, where the Go
// compiler's code reloaded 14 of its then 15 constant vectors every block
// and kept its scalars on the stack (BENCHMARKS.md, stop 55). It checks
// the bounds and hands the blocks to avx2Blocks.
func avx2MasksAsm(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	if len(s) < 64*from+128 {
		return 0
	}
	// The blocks while the next one is inside s too (i+128 <= len(s)).
	n := min(len(letter), (len(s)-64*from-64)/64)
	if n == 0 {
		return 0
	}
	special, anchor = special[:n], anchor[:n]
	avx2Blocks(unsafe.StringData(s[64*from:]), n, &letter[0], &special[0], &anchor[0], sum, &markupQuick)
	return n
}

// avx2Blocks computes the masks of n blocks from p (p+64*n+64 readable)
// into letter[:n], special[:n] and anchor[:n], and adds them up into
// sum, as avx2Masks does.
//
//go:noescape
func avx2Blocks(p *byte, n int, letter, special, anchor *uint64, sum *chunkSum, quick *[4096]uint8)
