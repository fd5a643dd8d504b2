//go:build goexperiment.simd && amd64

package untrusted

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestVectorMasks: the vector masks are blockMasks', block for block, on
// random bytes (every byte value, letters in both cases around the
// anchor words) and on the benchmark page.
func TestVectorMasks(t *testing.T) {
	if !haveVector {
		t.Skip("no AVX-512 VBMI on this CPU: Screen is the byte scan")
	}
	r := rand.New(rand.NewPCG(30, 4))
	var words []string
	for w := range vocabulary {
		words = append(words, w, strings.ToUpper(w), w+"s", w[:len(w)-1])
	}
	texts := []string{benchPage(1 << 20), benchPage(4 << 10)}
	for n := 0; n < 300; n++ {
		b := make([]byte, 64+r.IntN(1000))
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1:
				const odd = " <[\"\n\xe2\xef\xf3@`{"
				b[i] = odd[r.IntN(len(odd))]
			default:
				w := words[r.IntN(len(words))]
				i += copy(b[i:], w)
				if i < len(b) {
					b[i] = ' '
				}
			}
		}
		texts = append(texts, string(b))
	}
	for k, s := range texts {
		// From the first block and from a later one, into arrays of
		// the whole rest or of a chunk's few blocks.
		nb := (len(s) + 63) / 64
		for _, from := range []int{0, k % nb, nb - 1} {
			n := nb - from
			if k%2 == 1 {
				n = min(n, 1+k%chunkBlocks)
			}
			l, sp, a := make([]uint64, n), make([]uint64, n), make([]uint64, n)
			top := uint64(k % 2)
			first := s[k%len(s)]
			sum := chunkSum{top: top, first: first}
			done := vectorMasks(s, from, l, sp, a, &sum)
			if want := min(n, max(len(s)-64*(from+1), 0)/64); done != want {
				t.Fatalf("%d of %d blocks by vector from block %d", done, n, from)
			}
			var want chunkSum
			for b := 0; b < done; b++ {
				wl, ws, wa := blockMasks(s, 64*(from+b))
				starts := wl &^ (wl<<1 | top)
				top = wl >> 63
				want.words += bits.OnesCount64(starts)
				want.anchored |= wa & starts
				want.special |= ws
				for j := 0; j < 64; j++ {
					if s[64*(from+b)+j] == first {
						want.firstAt |= 1 << j
					}
				}
				if l[b] != wl || sp[b] != ws || a[b] != wa {
					t.Fatalf("block %d of %q:\nletter %064b\n  want %064b\nspecial %064b\n   want %064b\nanchor %064b\n  want %064b",
						from+b, s[64*(from+b):min(len(s), 64*(from+b)+64)], l[b], wl, sp[b], ws, a[b], wa)
				}
			}
			if want.top, want.first = top, first; sum != want {
				t.Fatalf("the sums of %d blocks from block %d: %+v, want %+v", done, from, sum, want)
			}
		}
	}
}
