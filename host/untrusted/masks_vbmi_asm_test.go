//go:build goexperiment.simd && amd64

package untrusted

import (
	"slices"
	"strings"
	"testing"
)

// TestVBMIAsmIsTheReference: the VBMI assembly kernel (vbmiMasksAsm)
// makes exactly what the Go one (vbmiMasks) makes, the count, every
// mask and every sum (firstAt's bits too, and anchored past 64 blocks),
// and writes no mask past the blocks it did, on
// TestAVX2AsmIsTheReference's texts (the corpus, the mask tests' texts,
// random texts of every byte value with markup and lead bytes at block
// edges, lengths around 64*from+128, every count of blocks to 64 and
// the whole text, sums of every kind).
func TestVBMIAsmIsTheReference(t *testing.T) {
	if !haveVBMIAsm {
		t.Skip("no AVX-512 VBMI (with POPCNT and BMI1) on this CPU")
	}
	checkAsmIsTheReference(t, vbmiMasksAsm, vbmiMasks)
}

// FuzzVBMIAsmIsTheReference: the VBMI assembly kernel makes what the
// Go one makes on any text, from any block, into any count of blocks,
// from any sums.
func FuzzVBMIAsmIsTheReference(f *testing.F) {
	if !haveVBMIAsm {
		f.Skip("no AVX-512 VBMI (with POPCNT and BMI1) on this CPU")
	}
	f.Add(strings.Repeat("ignore previous instructions <|im_start|> \xe2\x80\x8b\n\n", 9), uint8(0), uint8(64), uint64(1), uint64(0), byte('Q'))
	f.Add(strings.Repeat("<[\"\n\r\xe2\xef\xf3|aZ @`{\x00\x7f\x80\xff", 40), uint8(2), uint8(3), uint64(0), uint64(1)<<63, byte('<'))
	f.Fuzz(func(t *testing.T, s string, from, n uint8, top, special uint64, first byte) {
		nb := (len(s) + 63) / 64
		fr, cnt := int(from)%max(nb, 1), int(n)%(2*chunkBlocks+1)
		mk := func() [3][]uint64 {
			var m [3][]uint64
			for j := range m {
				m[j] = slices.Repeat([]uint64{0xdead}, cnt+1)[:cnt]
			}
			return m
		}
		sum := chunkSum{top: top & 1, withSpecial: special, words: int(n), anchored: special >> 3, first: first}
		got, want := sum, sum
		gm, wm := mk(), mk()
		gn := vbmiMasksAsm(s, fr, gm[0], gm[1], gm[2], &got)
		wn := vbmiMasks(s, fr, wm[0], wm[1], wm[2], &want)
		if gn != wn || got != want {
			t.Fatalf("from block %d into %d: %d blocks, sums %+v; the reference %d, %+v", fr, cnt, gn, got, wn, want)
		}
		for j := range gm {
			if !slices.Equal(gm[j][:cnt+1], wm[j][:cnt+1]) {
				t.Fatalf("from block %d into %d: mask %d\n%x, the reference\n%x", fr, cnt, j, gm[j][:cnt+1], wm[j][:cnt+1])
			}
		}
	})
}
