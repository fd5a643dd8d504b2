//go:build goexperiment.simd && amd64

package untrusted

import (
	"simd/archsimd"
	"unsafe"
)

// haveVector: the masks are computed 64 bytes at a time with AVX-512
// and VBMI's byte permute (VPERMB), the anchor filter's table lookup.
// Without them (an older CPU) Screen is the byte scan.
var haveVector = archsimd.X86.AVX512VBMI()

// vectorMasks computes blockMasks for the blocks of s from the first
// while all of a block's loads (64 bytes from each of its first
// filterLen bytes) are inside s, and returns how many it did.
func vectorMasks(s string, letter, special, anchor []uint64) int {
	if !haveVector {
		return 0
	}
	base := unsafe.Pointer(unsafe.StringData(s))
	load := func(i int) archsimd.Uint8x64 {
		return archsimd.LoadUint8x64((*[64]uint8)(unsafe.Add(base, i)))
	}
	var tab, other [filterLen]archsimd.Uint8x64
	for k := range tab {
		tab[k] = archsimd.LoadUint8x64(&anchorTable[k])
		other[k] = archsimd.BroadcastUint8x64(anchorOther[k])
	}
	fold, a, z := archsimd.BroadcastUint8x64(0x20), archsimd.BroadcastUint8x64('a'), archsimd.BroadcastUint8x64(26)
	zero := archsimd.BroadcastUint8x64(0)
	high, lead := archsimd.BroadcastUint8x64(0x80), archsimd.BroadcastUint8x64(specialLead)
	clsLo := archsimd.LoadUint8x64((*[64]uint8)(specialClass[:64]))
	clsHi := archsimd.LoadUint8x64((*[64]uint8)(specialClass[64:]))
	next := archsimd.LoadUint8x64(&specialNext)
	const last = filterLen - 1
	b := 0
	for i := 0; i+64+last <= len(s); i, b = i+64, b+1 {
		x := load(i)
		xl := load(i + last)
		l := x.Or(fold).Sub(a).Less(z).ToBits()
		ll := xl.Or(fold).Sub(a).Less(z).ToBits()
		// The letters at i+k: l shifted, the top k bits from ll.
		at := func(k uint) archsimd.Mask8x64 {
			return archsimd.Mask8x64FromBits(l>>k | ll>>(64-last)<<(64-k))
		}
		x1 := load(i + 1)
		acc := tab[0].Permute(x).Merge(zero, archsimd.Mask8x64FromBits(l))
		acc = acc.And(tab[1].Permute(x1).Merge(other[1], at(1)))
		acc = acc.And(tab[2].Permute(load(i+2)).Merge(other[2], at(2)))
		acc = acc.And(tab[3].Permute(load(i+3)).Merge(other[3], at(3)))
		acc = acc.And(tab[4].Permute(load(i+4)).Merge(other[4], at(4)))
		acc = acc.And(tab[last].Permute(xl).Merge(other[last], at(last)))
		// specialAt: the class by the low seven bits, the next byte's
		// fit by its low six; a lead's class only for a byte of 0x80 up.
		k := clsLo.ConcatPermute(clsHi, x)
		fit := k.And(next.Permute(x1)).NotEqual(zero).ToBits()
		hi := x.GreaterEqual(high).ToBits()
		isLead := k.Equal(lead).ToBits()
		letter[b], special[b], anchor[b] = l, fit&^(hi^isLead), ^acc.Equal(zero).ToBits()
	}
	return b
}
