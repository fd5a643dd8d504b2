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
//   - the anchor filter's tables are of 16 slots (letterSlot), so each
//     lookup is one shuffle by a byte's slot. The slot is looked up
//     once a byte, by its index (filterIndex): two shuffles, of the
//     slots of the indexes 0-15 and 16-31, and a blend (slots, below).
//     Against two shuffles a table, 32 entries each, this is a quarter
//     fewer instructions (the slots were searched for with the
//     buckets and positions: letterSlot; TestVectorMasks holds this
//     kernel to anchorAt, which looks through the same slots);
//   - the bytes specialAt judges: no two markup bytes have the same
//     low four bits, nor two leads of invisible characters, so one
//     shuffle by them finds the one markup byte a byte may be and
//     another the one lead (byLowHalf). A lead is special as it is, a
//     markup byte only where its four bytes may open markup
//     (mayOpenMarkupQuick), looked up for the markup bytes alone, one by
//     one: ordinary text has a markup byte every hundred bytes or so,
//     Markdown one or two a block. Most of them are line ends, and a
//     '\n' or '\r' is markup only before a '\n' (specialAt): the
//     markup bytes are compared as max(x, 0x20) where the byte after is
//     not '\n', which only '\n' (0x0A) and '\r' (0x0D) of them are
//     below (masks, below).
//
// The slots k places on, for the anchor tables, come from the slot
// vector and the next one's (VPERM2I128, then VPALIGNR per place); the
// assembly (avx2Blocks) stores the slots and loads them k bytes on, in
// a second pass over the blocks: the same bits.
func avx2Masks(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	if len(s) < 64*from+128 {
		return 0
	}
	special, anchor = special[:len(letter)], anchor[:len(letter)]
	base := unsafe.Pointer(unsafe.StringData(s))
	load := func(i int) archsimd.Uint8x32 {
		return archsimd.LoadUint8x32((*[32]uint8)(unsafe.Add(base, i)))
	}
	table := func(k int) archsimd.Uint8x32 { return archsimd.LoadUint8x32(&slotTables[k]) }
	t0, t1, t2, t3, t4 := table(0), table(1), table(2), table(3), table(4)
	slotLo, slotHi := archsimd.LoadUint8x32(&slotByIndex[0]), archsimd.LoadUint8x32(&slotByIndex[1])
	fold, off := archsimd.BroadcastUint8x32(0x20), archsimd.BroadcastInt8x32(0x60)
	nib, zeroU := archsimd.BroadcastUint8x32(0x0F), archsimd.BroadcastUint8x32(0)
	nl := archsimd.BroadcastUint8x32('\n')
	// slots makes the slots of the 32 bytes x, and their letters (the
	// bytes of a slot other than 0). The index is (x|0x20)-0x60 with
	// signed saturation: filterIndex for the bytes 0x40-0x7F (0 to 31),
	// and negative for the others, all no letter: a shuffle gives zero
	// for them, slot 0. A shuffle looks up by the low four bits, so the
	// slot is from the first half of slotByIndex where the index is at
	// most 15, else from the second (VPBLENDVB).
	slots := func(x archsimd.Uint8x32) (archsimd.Uint8x32, uint32) {
		i := x.Or(fold).AsInt8x32().SubSaturated(off)
		sl := slotHi.PermuteOrZeroGrouped(i).Merge(slotLo.PermuteOrZeroGrouped(i), i.Greater(nib.AsInt8x32()))
		return sl, ^sl.Equal(zeroU).ToBits()
	}
	markupAt, leadAt := archsimd.LoadUint8x32(&byLowHalf[0]), archsimd.LoadUint8x32(&byLowHalf[1])
	first := archsimd.BroadcastUint8x32(sum.first)
	// anchors is the anchor filter of the 32 bytes of slots v, those of
	// the next 32 bytes being w.
	anchors := func(v, w archsimd.Uint8x32) uint32 {
		m := v.Select128FromPair(1, 2, w) // v's high lane, w's low: for the shifts
		look := func(t archsimd.Uint8x32, k uint8) archsimd.Uint8x32 {
			return t.PermuteOrZeroGrouped(m.ConcatShiftBytesRightGrouped(k, v).AsInt8x32())
		}
		// The places of filterPos: 0, 1, 2, 4, 5.
		acc := t0.PermuteOrZeroGrouped(v.AsInt8x32()).And(look(t1, 1)).And(look(t2, 2)).
			And(look(t3, 4)).And(look(t4, 5))
		// Table 0 is zero at every byte but letters.
		return ^acc.Equal(zeroU).ToBits()
	}
	// masks makes the masks of the 32 bytes x but the anchor filter and
	// the letters: lead bytes and markup bytes, a '\n' or '\r' only
	// before a '\n' (the 32 bytes one on are xn; the other markup bytes
	// are not yet checked for the bytes after). A byte is compared with
	// the markup byte of its low half at least 0x20 where the byte after
	// is not '\n': a '\n' (0x0A) or '\r' (0x0D) then differs, the other
	// markup bytes are 0x20 or more and no byte of byLowHalf[0] is 0x20.
	masks := func(x, xn archsimd.Uint8x32) (lead, markup uint32) {
		low := x.And(nib).AsInt8x32()
		gated := x.Max(fold.AndNot(nl.Equal(xn).ToInt8x32().AsUint8x32()))
		markup = gated.Equal(markupAt.PermuteOrZeroGrouped(low)).ToBits()
		lead = x.Equal(leadAt.PermuteOrZeroGrouped(low)).ToBits()
		return lead, markup
	}
	b := 0
	last, words, anchored, withSpecial, firstAt := sum.top, sum.words, sum.anchored, sum.withSpecial, sum.firstAt
	seen := zeroU.Equal(nib) // none
	x0 := load(64 * from)
	v0, l0 := slots(x0)
	for i := 64 * from; b < len(letter) && i+128 <= len(s); i, b = i+64, b+1 {
		x1, x2 := load(i+32), load(i+64)
		v1, l1 := slots(x1)
		a0 := anchors(v0, v1)
		lead0, mk0 := masks(x0, load(i+1))
		v2, l2 := slots(x2)
		a1 := anchors(v1, v2)
		lead1, mk1 := masks(x1, load(i+33))
		// The boundary's first byte: whether it is in the chunk, not
		// where (a bit mask a block was 30 µs a MiB of this function's
		// 265).
		seen = seen.Or(x0.Equal(first)).Or(x1.Equal(first))
		l := uint64(l0) | uint64(l1)<<32
		a := uint64(a0) | uint64(a1)<<32
		x0, v0, l0 = x2, v2, l2
		sp := uint64(lead0) | uint64(lead1)<<32
		// The markup bytes whose four bytes may open markup
		// (mayOpenMarkupQuick: they are inside s, the next block is). This
		// loop is about 75 µs a MiB on the fixture's page (its count,
		// 0 to 2, mispredicted), but judging the first two without a
		// branch was 65 µs slower than it (stops 54, twice), and their
		// places written four a block to an array without a branch,
		// judged every 128, 115 µs slower. Its test was the two-byte
		// one (markupNext) until stop 57 (s57-f): on Markdown that
		// passed most paragraph breaks, quotes and brackets, which the
		// scalar side then threw away one by one.
		mk := uint64(mk0) | uint64(mk1)<<32
		for m := mk; m != 0; m &= m - 1 {
			p := i + bits.TrailingZeros64(m)
			if mayOpenMarkupQuick(s, p) {
				sp |= m & -m
			}
		}
		// The anchors at word starts only (blockMasks).
		starts := l &^ (l<<1 | last)
		a &= starts
		letter[b], special[b], anchor[b] = l, sp, a
		last = l >> 63
		words += bits.OnesCount64(starts)
		anchored |= nonZero(a) << b
		withSpecial |= nonZero(sp) << b
	}
	firstAt |= uint64(seen.ToBits())
	sum.top, sum.words, sum.anchored, sum.withSpecial, sum.firstAt = last, words, anchored, withSpecial, firstAt
	return b
}

// slotTables[k] is anchorSlots[k] twice (a shuffle looks up within each
// 128-bit lane).
var slotTables = func() (t [filterLen][32]uint8) {
	for k := range t {
		for j := range 32 {
			t[k][j] = anchorSlots[k][j%16]
		}
	}
	return t
}()

// slotByIndex[0] is the slots of the indexes 0-15 (filterIndex), [1]
// of 16-31, each twice.
var slotByIndex = func() (t [2][32]uint8) {
	for j := range 32 {
		t[0][j] = anchorSlotOf(byte(j % 16))
		t[1][j] = anchorSlotOf(byte(16 + j%16))
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
