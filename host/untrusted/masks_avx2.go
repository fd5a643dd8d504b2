//go:build goexperiment.simd && amd64

package untrusted

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"
)

// avx2Masks is vectorMasks with AVX2 only, 32 bytes a vector, two to
// a block. AVX2 has no full byte permute: its shuffle (VPSHUFB) looks
// up 16 entries, within each 128-bit lane. So the masks are made
// otherwise than vbmiMasks makes them, to the same bits:
//
//   - the anchor filter's tables: a byte's index (filterIndex) is 0 to
//     31 or 63, and entry 63 is entry 31 in every table (neither byte
//     is a letter; anchorHalves), so each lookup is two shuffles, of
//     entries 0-15 and 16-31, each giving zero where the index is the
//     other's (a shuffle index with its top bit set gives zero);
//   - the bytes specialAt judges: no two markup bytes have the same
//     low four bits, nor two leads of invisible characters, so one
//     shuffle by them finds the one markup byte a byte may be and
//     another the one lead (byLowHalf). A lead is special as it is, a
//     markup byte only with a next byte markupNext fits, looked up for
//     the markup bytes alone, one by one: the 64-entry table would be a
//     dozen instructions every 32 bytes, and ordinary text has a markup
//     byte every hundred bytes or so.
//
// The bytes k places on, for the anchor tables, come from the index
// vector and the next one's (VPERM2I128, then VPALIGNR per place).
func avx2Masks(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	if len(s) < 64*from+128 {
		return 0
	}
	special, anchor = special[:len(letter)], anchor[:len(letter)]
	base := unsafe.Pointer(unsafe.StringData(s))
	load := func(i int) archsimd.Uint8x32 {
		return archsimd.LoadUint8x32((*[32]uint8)(unsafe.Add(base, i)))
	}
	lo := func(k int) archsimd.Uint8x32 { return archsimd.LoadUint8x32(&anchorHalves[k][0]) }
	hi := func(k int) archsimd.Uint8x32 { return archsimd.LoadUint8x32(&anchorHalves[k][1]) }
	t0, t1, t2, t3, t4, t5 := lo(0), lo(1), lo(2), lo(3), lo(4), lo(5)
	u0, u1, u2, u3, u4, u5 := hi(0), hi(1), hi(2), hi(3), hi(4), hi(5)
	fold, off, top, bias := archsimd.BroadcastUint8x32(0x20), archsimd.BroadcastUint8x32(0x60),
		archsimd.BroadcastUint8x32(63), archsimd.BroadcastUint8x32(0x70)
	// index is filterIndex+0x70: 0x70-0x7F for the first table half,
	// 0x80-0x8F (and 0xAF for 63) for the second, so that the index
	// selects in one half and, its top bit flipped, in the other.
	index := func(x archsimd.Uint8x32) archsimd.Uint8x32 { return x.Or(fold).Sub(off).Min(top).Add(bias) }
	flip := archsimd.BroadcastUint8x32(0x80)
	look := func(t, u, i archsimd.Uint8x32) archsimd.Uint8x32 {
		return t.PermuteOrZeroGrouped(i.AsInt8x32()).Or(u.PermuteOrZeroGrouped(i.Xor(flip).AsInt8x32()))
	}
	// A letter's index is 0x71 to 0x8A: plus 0x0F, -128 to -103 signed.
	letterOff, letterEnd := archsimd.BroadcastUint8x32(0x0F), archsimd.BroadcastInt8x32(-102)
	nib := archsimd.BroadcastUint8x32(0x0F)
	markupAt, leadAt := archsimd.LoadUint8x32(&byLowHalf[0]), archsimd.LoadUint8x32(&byLowHalf[1])
	zeroU := archsimd.BroadcastUint8x32(0)
	first := archsimd.BroadcastUint8x32(sum.first)
	// masks makes the masks of the 32 bytes x and their indexes ix (iy
	// are the next 32 bytes'), but the anchor filter: letters, lead
	// bytes, markup bytes (not yet checked for the byte after) and the
	// boundary's first byte.
	masks := func(x, ix archsimd.Uint8x32) (l, lead, markup, f uint32) {
		l = letterEnd.Greater(ix.Add(letterOff).AsInt8x32()).ToBits()
		low := x.And(nib).AsInt8x32()
		markup = x.Equal(markupAt.PermuteOrZeroGrouped(low)).ToBits()
		lead = x.Equal(leadAt.PermuteOrZeroGrouped(low)).ToBits()
		return l, lead, markup, x.Equal(first).ToBits()
	}
	b := 0
	last, words, anchored, specials, firstAt := sum.top, sum.words, sum.anchored, sum.special, sum.firstAt
	x0 := load(64 * from)
	i0 := index(x0)
	for i := 64 * from; b < len(letter) && i+128 <= len(s); i, b = i+64, b+1 {
		x1, x2 := load(i+32), load(i+64)
		i1, i2 := index(x1), index(x2)
		l0, lead0, mk0, f0 := masks(x0, i0)
		l1, lead1, mk1, f1 := masks(x1, i1)
		// The anchor filter of both halves a table at a time, so that
		// each table is loaded once a block: the twelve do not fit in
		// AVX2's sixteen registers with the rest.
		m0 := i0.Select128FromPair(1, 2, i1) // i0's high lane, i1's low: for the shifts
		m1 := i1.Select128FromPair(1, 2, i2)
		acc0, acc1 := look(t0, u0, i0), look(t0, u0, i1)
		acc0, acc1 = acc0.And(look(t1, u1, m0.ConcatShiftBytesRightGrouped(1, i0))), acc1.And(look(t1, u1, m1.ConcatShiftBytesRightGrouped(1, i1)))
		acc0, acc1 = acc0.And(look(t2, u2, m0.ConcatShiftBytesRightGrouped(2, i0))), acc1.And(look(t2, u2, m1.ConcatShiftBytesRightGrouped(2, i1)))
		acc0, acc1 = acc0.And(look(t3, u3, m0.ConcatShiftBytesRightGrouped(3, i0))), acc1.And(look(t3, u3, m1.ConcatShiftBytesRightGrouped(3, i1)))
		acc0, acc1 = acc0.And(look(t4, u4, m0.ConcatShiftBytesRightGrouped(4, i0))), acc1.And(look(t4, u4, m1.ConcatShiftBytesRightGrouped(4, i1)))
		acc0, acc1 = acc0.And(look(t5, u5, m0.ConcatShiftBytesRightGrouped(5, i0))), acc1.And(look(t5, u5, m1.ConcatShiftBytesRightGrouped(5, i1)))
		x0, i0 = x2, i2
		l := uint64(l0) | uint64(l1)<<32
		// Table 0 is zero at every byte but letters.
		a := uint64(^acc0.Equal(zeroU).ToBits()) | uint64(^acc1.Equal(zeroU).ToBits())<<32
		sp := uint64(lead0) | uint64(lead1)<<32
		// The markup bytes that markupNext fits the next byte of (it
		// is inside s: the next block is). (Judging the first two
		// without a branch was 65 µs a MiB slower.)
		mk := uint64(mk0) | uint64(mk1)<<32
		for m := mk; m != 0; m &= m - 1 {
			p := i + bits.TrailingZeros64(m)
			if byteClass[s[p]&0x7f]&markupNext[s[p+1]&63] != 0 {
				sp |= m & -m
			}
		}
		letter[b], special[b], anchor[b] = l, sp, a
		starts := l &^ (l<<1 | last)
		last = l >> 63
		words += bits.OnesCount64(starts)
		anchored |= a & starts
		specials |= sp
		firstAt |= uint64(f0) | uint64(f1)<<32
	}
	sum.top, sum.words, sum.anchored, sum.special, sum.firstAt = last, words, anchored, specials, firstAt
	return b
}

// anchorHalves[k] is anchorTable[k]'s entries 0-15 and 16-31, each
// twice (a shuffle looks up within each 128-bit lane). Entry 63 is no
// other than 31: both are for bytes that are no letter.
var anchorHalves = func() (t [filterLen][2][32]uint8) {
	for k := range t {
		if anchorTable[k][31] != anchorTable[k][63] {
			panic("untrusted: anchor table entries 31 and 63 differ")
		}
		for j := 0; j < 32; j++ {
			t[k][0][j] = anchorTable[k][j%16]
			t[k][1][j] = anchorTable[k][16+j%16]
		}
	}
	return t
}()

// byLowHalf[0][c&15] is the markup byte whose low four bits are c's
// (markupBit: they differ in them), byLowHalf[1][c&15] the lead byte
// of an invisible character (0xE2, 0xEF, 0xF3) whose are; where there
// is none, a byte with other low bits, so that no byte equals it.
var byLowHalf = func() (t [2][32]uint8) {
	for j := range 32 {
		t[0][j], t[1][j] = uint8(j%16)^1, uint8(j%16)^1
	}
	set := func(k int, c byte) {
		if t[k][c&15] != c&15^1 {
			panic("untrusted: two bytes with the same low half")
		}
		t[k][c&15], t[k][16+c&15] = c, c
	}
	for c := range markupBit {
		set(0, c)
	}
	set(1, 0xE2)
	set(1, 0xEF)
	set(1, 0xF3)
	return t
}()
