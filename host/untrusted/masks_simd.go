//go:build goexperiment.simd && amd64

package untrusted

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"
)

// The masks are computed by one of two kernels, by what the CPU has:
//
//   - AVX-512 with VBMI (Intel since Ice Lake, AMD since Zen 4): 64
//     bytes a vector, the anchor filter's 64-entry tables looked up by
//     one byte permute (VPERMB) each (vbmiMasks, below, the reference;
//     Screen runs its copy in assembly, vbmiMasksAsm,
//     masks_vbmi_amd64.s, where the CPU has POPCNT and BMI1 too);
//   - AVX2 only (AMD before Zen 4, Intel before Ice Lake, many cloud
//     CPUs): 32 bytes a vector, the tables by two 16-entry shuffles
//     (VPSHUFB) each (avx2Masks, masks_avx2.go, the reference; Screen
//     runs its copy in assembly, avx2MasksAsm, masks_avx2_amd64.s, where
//     the CPU has POPCNT too, as every AVX2 CPU has).
//
// Without either (a CPU older than Haswell) Screen is the byte scan.
var (
	haveVBMI   = archsimd.X86.AVX512VBMI()
	haveAVX2   = archsimd.X86.AVX2()
	haveVector = haveVBMI || haveAVX2
)

// vectorMasks computes blockMasks for the blocks of s from block from
// on, into letter, special and anchor (as many as they hold), while the
// next block is inside s too, and returns how many it did. It adds up
// the blocks it did into sum (chunkSum), from sum.top.
//
// The kernel is the cheapest measured where the CPU has it: on the Zen
// 5 guest (stop 60, s60-e; ScreenFor's thread CPU on 1 MiB, the three
// kernels alternated call by call, 600 rounds, the medians of three
// runs) the VBMI assembly took 61-63 µs on the line page, 136-143 on
// the guides, 125-131 on architecture.md, 136-145 on the READMEs; the
// AVX2 assembly 104-111, 173-186, 167-175, 170-181; the Go VBMI kernel
// 122-130, 196-210, 186-194, 195-208 (VBMI assembly/Go 0.50-0.51 on the
// line page, 0.69-0.71 on prose; /AVX2 assembly 0.59, 0.75-0.81). The
// Go VBMI kernel was the dearer of the other two (s60-a: the AVX2
// assembly 0.86-0.91 of it): the compiler's code reloads constant
// vectors and spills its scalars, as it did the AVX2 kernel's (stop 55).
func vectorMasks(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	switch {
	case haveVBMIAsm && !forceAVX2 && !forceVBMIGo:
		return vbmiMasksAsm(s, from, letter, special, anchor, sum)
	case haveVBMI && !forceAVX2:
		return vbmiMasks(s, from, letter, special, anchor, sum)
	case haveAVX2Asm && !forceAVX2Go:
		return avx2MasksAsm(s, from, letter, special, anchor, sum)
	case haveAVX2:
		return avx2Masks(s, from, letter, special, anchor, sum)
	}
	return 0
}

// forceAVX2 makes vectorMasks use the AVX2 kernel on a CPU with VBMI
// too, so that the tests can run both there (and forceAVX2Go, with it,
// the AVX2 Go kernel).
var forceAVX2 = false

// forceVBMIGo makes the VBMI kernel the Go one (vbmiMasks), not its
// assembly, so that the verdict tests run the reference too.
var forceVBMIGo = false

// forceAVX2Go makes the AVX2 kernel the Go one (avx2Masks), not its
// assembly, so that the verdict tests run the reference too.
var forceAVX2Go = false

// vbmiMasks is vectorMasks with AVX-512 VBMI.
// Each byte's anchor table index (filterIndex) is computed once, for a
// block ahead; the bytes k places on are that index vector and the next
// block's shifted by one permute of the two (VPERMI2B).
func vbmiMasks(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	if len(s) < 64*from+128 {
		return 0
	}
	special, anchor = special[:len(letter)], anchor[:len(letter)]
	base := unsafe.Pointer(unsafe.StringData(s))
	load := func(i int) archsimd.Uint8x64 {
		return archsimd.LoadUint8x64((*[64]uint8)(unsafe.Add(base, i)))
	}
	table := func(k int) archsimd.Uint8x64 { return archsimd.LoadUint8x64(&anchorTable[k]) }
	shift := func(k int) archsimd.Uint8x64 { return archsimd.LoadUint8x64(&shiftIndex[k]) }
	t0, t1, t2, t3, t4 := table(0), table(1), table(2), table(3), table(4)
	s1, s2, s3, s4 := shift(1), shift(2), shift(3), shift(4)
	fold, off, top := archsimd.BroadcastUint8x64(0x20), archsimd.BroadcastUint8x64(0x60), archsimd.BroadcastUint8x64(63)
	index := func(x archsimd.Uint8x64) archsimd.Uint8x64 { return x.Or(fold).Sub(off).Min(top) } // filterIndex
	zero, high, letterBit := archsimd.BroadcastUint8x64(0), archsimd.BroadcastUint8x64(0x80), archsimd.BroadcastUint8x64(classLetter)
	clsLo := archsimd.LoadUint8x64((*[64]uint8)(byteClass[:64]))
	clsHi := archsimd.LoadUint8x64((*[64]uint8)(byteClass[64:]))
	next := archsimd.LoadUint8x64(&markupNext)
	gateLo := archsimd.LoadUint8x64((*[64]uint8)(gateThird[:64]))
	gateHi := archsimd.LoadUint8x64((*[64]uint8)(gateThird[64:]))
	b := 0
	// The sums in registers; the scalar instructions that make them run
	// beside the vector ones, which are what the loop waits on.
	last, words, anchored, withSpecial, firstAt := sum.top, sum.words, sum.anchored, sum.withSpecial, sum.firstAt
	first := archsimd.BroadcastUint8x64(sum.first)
	// Each block is loaded once: the next block's bytes give its filter
	// index and, by a permute of the two, the bytes one place on.
	xn := load(64 * from)
	n := index(xn)
	for i := 64 * from; b < len(letter) && i+128 <= len(s); i, b = i+64, b+1 {
		x := xn
		xn = load(i + 64)
		nn := index(xn)
		acc := t0.Permute(n).
			And(t1.Permute(n.ConcatPermute(nn, s1))).
			And(t2.Permute(n.ConcatPermute(nn, s2))).
			And(t3.Permute(n.ConcatPermute(nn, s3))).
			And(t4.Permute(n.ConcatPermute(nn, s4)))
		n = nn
		// specialAt and the letters: the class by the low seven bits,
		// the next byte's fit by its low six; a lead's class only for a
		// byte of 0x80 up, a letter's only below. The markup bytes are
		// those of the two-byte test (markupNext), not specialAt's
		// since stop 57 (s57-f): specialAt asks whether the four
		// bytes may open markup (mayOpenMarkupQuick), which has no
		// permute here; a line end's also by the byte two after it
		// (gateThird, stop 61, by its low seven bits since stop 62),
		// and a lead byte's only where that byte may be an invisible
		// character's third (stop 62). Each test passes the first byte
		// of every markup and every invisible character, so they
		// differ only at special bytes judged to nothing (markup where
		// markupAt finds nothing, a lead that starts no invisible
		// character); the two-byte test's extras only make more blocks
		// judged (TestVectorMasks allows those differences for this
		// kernel, and no other).
		k := clsLo.ConcatPermute(clsHi, x).And(gateLo.ConcatPermute(gateHi, load(i+2)))
		hi := x.GreaterEqual(high).ToBits()
		fit := k.And(next.Permute(x.ConcatPermute(xn, s1))).NotEqual(zero).ToBits()
		isLead := k.GreaterEqual(high).ToBits()
		l := k.And(letterBit).NotEqual(zero).ToBits() &^ hi
		starts := l &^ (l<<1 | last)
		sp, a := fit&^(hi^isLead), ^acc.Equal(zero).ToBits()&starts // anchors at word starts
		letter[b], special[b], anchor[b] = l, sp, a
		last = l >> 63
		words += bits.OnesCount64(starts)
		anchored |= nonZero(a) << b
		withSpecial |= nonZero(sp) << b
		firstAt |= x.Equal(first).ToBits()
	}
	sum.top, sum.words, sum.anchored, sum.withSpecial, sum.firstAt = last, words, anchored, withSpecial, firstAt
	return b
}

// shiftIndex[k] is the permute that takes bytes p to p+63 of two
// vectors joined, p = filterPos[k]: the bytes p places on (a chunk is a
// few KiB, so these are made once, not in every call). The markup test
// uses shiftIndex[1], the bytes one place on (filterPos[1] is 1).
var shiftIndex = func() (t [filterLen][64]uint8) {
	for k := range t {
		for j := range t[k] {
			t[k][j] = uint8(j + filterPos[k])
		}
	}
	return t
}()
