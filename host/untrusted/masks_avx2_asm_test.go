//go:build goexperiment.simd && amd64

package untrusted

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestAVX2AsmIsTheReference: the assembly kernel (avx2MasksAsm) makes
// exactly what the Go one (avx2Masks) makes, the count, every mask and
// every sum (firstAt too, which need only be 0 or not), and writes no
// mask past the blocks it did: on the corpus and the mask tests' texts,
// on random texts of every byte value with markup and lead bytes at
// block edges, at lengths around 64*from+128 (where the kernels start
// to do blocks at all), from sums of every kind, into more than 64
// blocks too (avx2Blocks does 64 at most).
func TestAVX2AsmIsTheReference(t *testing.T) {
	if !haveAVX2Asm {
		t.Skip("no AVX2 (with POPCNT) on this CPU")
	}
	checkAsmIsTheReference(t, avx2MasksAsm, avx2Masks)
}

// checkAsmIsTheReference: the kernel asm makes exactly what ref makes
// (TestAVX2AsmIsTheReference's texts and sums), every mask and every
// field of the sum.
func checkAsmIsTheReference(t *testing.T, asm, ref func(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int) {
	all := append(loadCorpus(t, "injections.jsonl"), loadCorpus(t, "benign.jsonl")...)
	texts := append(maskTexts(), strings.Join(all, "\n"), strings.Join(all, ""))
	for _, s := range all {
		texts = append(texts, s)
	}
	r := rand.New(rand.NewPCG(56, 1))
	const odd = "<[\"\n\xe2\xef\xf3|aZ @`{\x00\x7f\x80\xff"
	for n := 0; n < 2000; n++ {
		from := r.IntN(4)
		b := make([]byte, 64*from+100+r.IntN(60))
		for i := range b {
			if r.IntN(3) == 0 {
				b[i] = odd[r.IntN(len(odd))]
			} else {
				b[i] = byte(r.IntN(256))
			}
		}
		// Markup at a block's last byte, its next byte the next block's.
		for e := 63; e < len(b); e += 64 {
			b[e] = odd[r.IntN(5)]
		}
		texts = append(texts, string(b))
	}
	for k, s := range texts {
		nb := (len(s) + 63) / 64
		for _, from := range []int{0, 1, 2, k % nb, max(nb-3, 0), nb - 2, nb - 1} {
			if from < 0 {
				continue
			}
			for _, n := range []int{0, 1, 2, 1 + k%chunkBlocks, chunkBlocks, nb} {
				sum := chunkSum{top: r.Uint64() & 1, first: s[r.IntN(len(s))]}
				if k%3 == 0 { // a chunk's sums from its blocks before
					sum.words, sum.anchored, sum.withSpecial, sum.firstAt = r.IntN(1000), r.Uint64(), r.Uint64(), r.Uint64()&1
				}
				got, want := sum, sum
				masks := func() [3][]uint64 {
					var m [3][]uint64
					for j := range m {
						m[j] = slices.Repeat([]uint64{0xdead}, n+1)[:n]
					}
					return m
				}
				gm, wm := masks(), masks()
				gn := asm(s, from, gm[0], gm[1], gm[2], &got)
				wn := ref(s, from, wm[0], wm[1], wm[2], &want)
				if gn != wn {
					t.Fatalf("text %d (%d bytes) from block %d into %d: %d blocks, the reference %d", k, len(s), from, n, gn, wn)
				}
				for j := range gm {
					if g, w := gm[j][:n+1], wm[j][:n+1]; !slices.Equal(g, w) {
						for b := range g {
							if g[b] != w[b] {
								t.Fatalf("text %d (%d bytes) from block %d into %d: mask %d of block %d\n%064b, the reference\n%064b",
									k, len(s), from, n, j, b, g[b], w[b])
							}
						}
					}
				}
				// anchored too past 64 blocks: every kernel's sum
				// matches its reference's there (the AVX2 assembly
				// hands avx2Blocks 64 blocks at a time, s60-a).
				if got != want {
					t.Fatalf("text %d (%d bytes) from block %d into %d: sums %+v, the reference %+v", k, len(s), from, n, got, want)
				}
			}
		}
	}
}
