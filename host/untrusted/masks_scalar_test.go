package untrusted

import "math/bits"

// On a CPU without the vector code (haveVector false) screenSparse is
// tested with vectorMasksScalar in the vector pass's place: without it
// every block's masks came from blockMasks and no chunk ever took the
// skips its sums allow (a chunk with no special byte keeps the vector
// pass's word count; one with no anchor at a word start skips the
// phrase pass), so those were tested only on a machine with AVX-512
// VBMI. Screen and ScreenFor themselves stay the byte scan there.
func init() {
	if !haveVector {
		masksOf = vectorMasksScalar
	}
}

// vectorMasksScalar is what vectorMasks computes, by blockMasks: the
// masks of the blocks from block from while the next block is inside s
// too (the vector pass loads a block ahead), as many as letter holds,
// and their sums (chunkSum) from sum.top. TestVectorMasks holds the
// vector pass to the same reference, block for block and sum for sum.
func vectorMasksScalar(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	b := 0
	for i := 64 * from; b < len(letter) && i+128 <= len(s); i, b = i+64, b+1 {
		l, sp, a := blockMasks(s, i, sum.top)
		letter[b], special[b], anchor[b] = l, sp, a
		starts := l &^ (l<<1 | sum.top)
		sum.top = l >> 63
		sum.words += bits.OnesCount64(starts)
		sum.anchored |= nonZero(a) << b
		sum.withSpecial |= nonZero(sp) << b
		for j := 0; j < 64; j++ {
			if s[i+j] == sum.first {
				sum.firstAt |= 1 << j
			}
		}
	}
	return b
}
