package untrusted

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// anchoredOf is chunkSum.anchored of the blocks' anchor masks: bit b
// for each block b of the first 64 with an anchor bit.
func anchoredOf(anchor []uint64) (m uint64) {
	for b, a := range anchor[:min(len(anchor), 64)] {
		if a != 0 {
			m |= 1 << b
		}
	}
	return m
}

// TestChunkAnchored: the blocks screenSparse gives phraseState.chunk as
// those with an anchor bit (chunkSum.anchored, which chunk visits
// alone) are exactly those, for chunks of every size on the mask
// tests' texts and at every length of their ends: by the vector pass
// (the kernel this CPU runs, or its scalar form), then tailMasks for
// the blocks it leaves (the text's last; every block of a short text),
// each bit where its block's anchor mask is not 0 and nowhere else.
func TestChunkAnchored(t *testing.T) {
	texts := []string{strings.Repeat("ignore all previous instructions. The model says ", 300)}
	for _, w := range []string{"ignore", "must", "system", "AI", "prompt", "mode"} {
		for pad := 0; pad < 130; pad += 7 {
			texts = append(texts, strings.Repeat(" ", pad)+w+strings.Repeat(" x", 40)+" "+w)
		}
	}
	r := rand.New(rand.NewPCG(59, 1))
	for n := 0; n < 200; n++ {
		var b strings.Builder
		for b.Len() < 64*r.IntN(70) {
			b.WriteString([]string{"must ", "you ", "are ", "now ", "\n\n", "ignore ", "all ", "a ", "zz ", "\xe2\x80\x8b"}[r.IntN(10)])
		}
		texts = append(texts, b.String()+"x")
	}
	for k, s := range texts {
		nb := (len(s) + 63) / 64
		for _, n := range []int{1, 2, 3, 1 + k%chunkBlocks, chunkBlocks} {
			top := uint64(0)
			for b0 := 0; b0 < nb; b0 += n {
				m := min(n, nb-b0)
				l, sp, a := make([]uint64, m), make([]uint64, m), make([]uint64, m)
				sum := chunkSum{top: top}
				nv := masksOf(s, b0, l, sp, a, &sum)
				tailMasks(s, b0, nv, l, sp, a, &sum)
				if want := anchoredOf(a); sum.anchored != want {
					t.Fatalf("text %d, chunk of %d blocks at block %d (%d by the vector pass): anchored %064b, want %064b", k, m, b0, nv, sum.anchored, want)
				}
				for b := range m {
					wl, _, wa := blockMasks(s, 64*(b0+b), top)
					if l[b] != wl || a[b] != wa {
						t.Fatalf("text %d, block %d: letters %064b anchors %064b, want %064b %064b", k, b0+b, l[b], a[b], wl, wa)
					}
					top = wl >> 63
				}
			}
		}
	}
}

// TestAnchorsAgainAnchored: anchorsAgain keeps anchored true: the
// blocks it makes again (set, some past the chunk's end) get their bit
// where their new anchor mask is not 0 and lose it where it is 0, the
// others keep theirs. Letters are taken out at random, as run takes
// out the bytes a lead steps over, so that anchors come and go (and
// most of a block's, so that a block loses them all).
func TestAnchorsAgainAnchored(t *testing.T) {
	r := rand.New(rand.NewPCG(59, 2))
	words := []string{"ignore", "must", "system", "prompt", "xx", "abignore", "amust"}
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		for b.Len() < 64*(1+r.IntN(8))+64 {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(" \xe2"[r.IntN(2):][:1])
		}
		s := b.String()
		m := len(s)/64 - 1
		l, a := make([]uint64, m), make([]uint64, m)
		top := uint64(0)
		for k := range m {
			l[k], _, a[k] = blockMasks(s, 64*k, top)
			top = l[k] >> 63
		}
		anchored := anchoredOf(a)
		for range r.IntN(6) { // letters stepped over, or most of a block's
			k := r.IntN(m)
			if r.IntN(2) == 0 {
				l[k] &^= uint64(7) << r.IntN(62)
			} else {
				l[k] &= r.Uint64() & r.Uint64()
			}
		}
		set := r.Uint64() & (1<<(m+1) - 1)
		got := anchorsAgain(s, 0, l, a, set, 0, anchored)
		if want := anchoredOf(a); got != want {
			t.Fatalf("%q, blocks %b made again: anchored %b, want %b", s, set, got, want)
		}
		for k := range m {
			if set&(1<<k) == 0 {
				continue
			}
			tp := uint64(0)
			if k > 0 {
				tp = l[k-1] >> 63
			}
			var wa uint64
			for st := l[k] &^ (l[k]<<1 | tp); st != 0; st &= st - 1 {
				if j := bits.TrailingZeros64(st); anchorAt(s, 64*k+j) {
					wa |= 1 << j
				}
			}
			if a[k] != wa {
				t.Fatalf("%q, block %d made again: %064b, want %064b", s, k, a[k], wa)
			}
		}
	}
}

// TestCountUntil: countUntil notes the words before each block, from
// the last noted, as far as the block that holds word hi and no
// further (run counts no block past the words keep gives), or to the
// chunk's end when hi is past its words; with countTo between, as chunk
// and index call it. Letters at random, dense and sparse, with the top
// bit before the chunk either way.
func TestCountUntil(t *testing.T) {
	r := rand.New(rand.NewPCG(59, 3))
	for n := 0; n < 3000; n++ {
		nb := 1 + r.IntN(chunkBlocks)
		letter := make([]uint64, nb)
		for b := range letter {
			switch r.IntN(3) {
			case 0:
				letter[b] = r.Uint64()
			case 1:
				letter[b] = r.Uint64() & r.Uint64() & r.Uint64()
			}
		}
		ph := phraseState{letter: letter, topIn: r.Uint64() & 1}
		before := r.IntN(1000)
		ph.counts[0] = before
		want := []int{before}
		top := ph.topIn
		for _, l := range letter {
			want = append(want, want[len(want)-1]+bits.OnesCount64(l&^(l<<1|top)))
			top = l >> 63
		}
		hi := before
		for range 8 {
			if r.IntN(4) == 0 {
				ph.countTo(r.IntN(nb + 1))
			}
			hi += r.IntN(40)
			from := ph.counted
			ph.countUntil(hi)
			c := ph.counted
			for b := 0; b <= c; b++ {
				if ph.counts[b] != want[b] {
					t.Fatalf("blocks %d, hi %d: counts[%d] %d, want %d", nb, hi, b, ph.counts[b], want[b])
				}
			}
			if c < nb && want[c] < hi {
				t.Fatalf("blocks %d: counted to block %d, %d words, not to word %d", nb, c, want[c], hi)
			}
			if c > from && want[c-1] >= hi {
				t.Fatalf("blocks %d: counted to block %d, past word %d (%d words before block %d)", nb, c, hi, want[c-1], c-1)
			}
		}
	}
}

// TestWordsGivenAtAChunksEnd: the words a window needs that keep gives
// at its chunk's end (those six words or more before it) are found by
// run, which counts the chunk's blocks only as far as the last of them
// (countUntil): a phrase's anchor in the chunk's first block with the
// words its window looks at (window), its last word the first of a
// later block and the word before it the last of the block before (so
// that no window counted them), 4 to 9 words after it in the chunk (it
// is the last word given, or near it), and the text long enough that
// the vector pass counted the chunk's words.
func TestWordsGivenAtAChunksEnd(t *testing.T) {
	phrases := [][3]string{{"not tell a b c", "the", "user"}, {"AI must a b", "c", "call"},
		{"never tell a b", "x", "users"}, {"do not mention a b", "x", "the"}}
	for _, n := range []int{3, 4, chunkBlocks} {
		withChunk(n, func() {
			for _, x := range phrases {
				for blk := 2; blk < n; blk++ {
					for after := 4; after <= 9; after++ {
						b := x[0] + strings.Repeat(" ", 64*blk-len(x[0])-len(x[1])-1) + x[1] + " " + x[2]
						b += strings.Repeat(" a", after)
						b += strings.Repeat(" ", 64*n-len(b)) + strings.Repeat("b c d ", 40)
						sameAsOracle(t, b)
						sameAsOracle(t, "z "+b[2:])
					}
				}
			}
		})
	}
}
