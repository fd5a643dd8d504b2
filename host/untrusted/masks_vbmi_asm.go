//go:build goexperiment.simd && amd64

package untrusted

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveVBMIAsm: the VBMI kernel in assembly (masks_vbmi_amd64.s) runs
// here: AVX-512 F, BW and VBMI with the OS keeping the ZMM and mask
// registers (archsimd.X86.AVX512VBMI asks all of that), POPCNT and BMI1
// (ANDN) for its scalar steps.
var haveVBMIAsm = haveVBMI && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512VBMI && cpu.X86.HasPOPCNT && cpu.X86.HasBMI1

// vbmiMasksAsm is vbmiMasks (masks_simd.go, the reference: same
// tables, same steps, same bits) written in assembly, where the Go
// compiler's code reloads constant vectors and keeps scalars on the
// stack as it did the AVX2 kernel's (BENCHMARKS.md, stops 55 and 60).
// It checks the bounds and hands the blocks to vbmiBlocks.
func vbmiMasksAsm(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	n := asmBlocks(s, from, len(letter))
	if n == 0 {
		return 0
	}
	special, anchor = special[:n], anchor[:n]
	p := unsafe.StringData(s[64*from:])
	// vbmiBlocks does 64 blocks at most (a bit a block in a register);
	// a chunk is 64. Past 64, a block has no anchored or withSpecial
	// bit (vbmiMasks: a shift by 64 or more is 0).
	for b := 0; b < n; b += chunkBlocks {
		k, anchored, withSpecial := min(n-b, chunkBlocks), sum.anchored, sum.withSpecial
		vbmiBlocks((*byte)(unsafe.Add(unsafe.Pointer(p), 64*b)), k, &letter[b], &special[b], &anchor[b], sum)
		if b > 0 {
			sum.anchored, sum.withSpecial = anchored, withSpecial
		}
	}
	return n
}

// vbmiBlocks computes the masks of n blocks (1 to 64) from p (p+64*n+64 readable)
// into letter[:n], special[:n] and anchor[:n], and adds them up into
// sum, as vbmiMasks does.
//
//go:noescape
func vbmiBlocks(p *byte, n int, letter, special, anchor *uint64, sum *chunkSum)

// anchorRaw[k][v] is anchorTable[k] of the byte v (0 to 127), as the
// assembly looks a byte up by its low seven bits after taking one of
// 0x80 up as 0x7f (VPMINUB): a letter's entry for either case, any
// other byte's (a byte of 0x80 up, a digit, a space) no letter's, as
// filterIndex gives them. Each table is two registers, looked up with
// no index to compute and no shift (masks_vbmi_amd64.s).
var anchorRaw = func() (t [filterLen][128]uint8) {
	for k := range t {
		for v := range t[k] {
			t[k][v] = anchorTable[k][filterIndex(byte(v))]
		}
	}
	return
}()
