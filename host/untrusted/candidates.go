package untrusted

import "math/bits"

// The anchor filter's candidates (the vector pass's anchor bits) are
// looked up a batch at a time with no branch on what each one is, and
// only the anchors among them go on to window. A screening in a call
// runs after milliseconds of other code (gRPC, redaction), which leave
// the branch predictor nothing of the screener's: there a branch that
// goes either way at random costs a mispredict nearly each time. About
// half the candidates are no anchor ("directory", "program"), at
// random, and a block holds one to four, so the candidates' loop in
// each block (its end), the lookup's compare, a word running into the
// next block and one of more than eight letters were each such a branch.
// Looked up with no branch, the screener took 0.94-0.95 of its time on
// the guides right after other code (TestScreenAfterOtherCode's
// harness, stop 64); in a loop, where the predictor has learnt the
// screener's branches, it was about as fast as before.

// hitBatch is the anchors noted before they go to window: a chunk of
// prose has about seven.
const hitBatch = 64

// anchorHit is a candidate that is an anchor: its block in the chunk,
// its bit there, where its word ends and its roles.
type anchorHit struct {
	b, j, end int
	r         uint32
}

// anchors gives window every anchor of the chunk's blocks anchored, in
// the text's order, and notes the windows that open. aw and lw are the
// blocks' anchor and letter masks (lookUpCandidates may leave an anchor
// mask with only its candidates not yet taken); nb is the chunk's
// blocks.
func (ph *phraseState) anchors(aw, lw *[chunkBlocks]uint64, nb int, anchored uint64) {
	for anchored != 0 {
		var k int
		k, anchored = ph.lookUpCandidates(aw, lw, nb, anchored)
		for _, h := range ph.hits[:k] {
			b, j := h.b&(chunkBlocks-1), h.j
			starts := ph.startsOf(b)
			back, fwd := ph.window(b, j, starts, h.r)
			if back < 0 {
				continue // no rule it serves can fire (window)
			}
			ph.countTo(b + 1)
			idx := ph.counts[b] + bits.OnesCount64(starts&(1<<j-1)) + 1
			ph.keep(idx - maxBack)
			// After keep: the word in its slot (idx-8) was given.
			ph.looked[idx&7] = lookedUp{idx: idx, end: h.end, roles: h.r}
			lo := max(idx-back, 1)
			ph.need |= (1<<(fwd+idx-lo+1) - 1) << (lo - ph.base)
		}
	}
}

// lookUpCandidates takes the candidates of the blocks anchored (aw,
// their anchor masks) in the text's order, one a turn of a single loop,
// looks each up, and notes the anchors in ph.hits, until hitBatch of them
// or no candidate is left. It returns how many it noted and the blocks
// with candidates left (aw's mask of the first of them is then what is
// left of it). The loop holds the block at hand and its candidates left
// in registers, and the next block's mask loaded ahead: moving on is a
// choice made with no branch, and nothing is stored and loaded back (the
// block's mask cleared in aw as each candidate was taken was loaded
// again for the next, and about half of them are in a block that has
// more: 0.88-0.89 of the screener's time in the call, stop 64).
func (ph *phraseState) lookUpCandidates(aw, lw *[chunkBlocks]uint64, nb int, anchored uint64) (k int, left uint64) {
	s, b0 := ph.s, ph.b0
	b := bits.TrailingZeros64(anchored) & (chunkBlocks - 1)
	m := aw[b] // not 0: the kernels set a block's bit only then
	for k < hitBatch {
		j := bits.TrailingZeros64(m) & 63
		m &= m - 1
		p := 64*(b0+b) + j
		// The word's letters in its block, and in the next when it
		// runs into it (about one candidate in ten on prose); from
		// the chunk's last block by the bytes (endPast). n is past
		// the word when the next block's letters all are (n ≥ 64: no
		// anchor).
		n := bits.TrailingZeros64(^(lw[b] >> j))
		cross := oneIf(j+n == 64)
		if cross&oneIf(b+1 == nb) != 0 {
			n = ph.endPast(p) - p
		} else {
			n += bits.TrailingZeros64(^lw[(b+1)&(chunkBlocks-1)]) & -int(cross)
		}
		end := p + n
		// Looked up by one probe of anchorVocab with every compare
		// made: the slot's anchor when it has the word's first eight
		// letters and length, and its last eight when it has more than
		// eight (loaded from the word's start when it has eight or
		// fewer, and then not looked at; a word ends inside the text,
		// so its last eight bytes are in it when it has more). A word
		// within the text's last seven bytes is looked up in the
		// vocabulary.
		var r uint32
		if p+8 <= len(s) {
			lo := (load8(s, p) | fold8) & lowBytes[n&15]
			e := &anchorVocab[anchorSlot(lo, n, anchorMul)]
			d := n - 8
			hi := load8(s, p+d&^(d>>63)) | fold8
			is := oneIf(e.lo == lo) & oneIf(int(e.n) == n) & (oneIf(n <= 8) | oneIf(hi == e.hi))
			r = e.roles & uint32(-is)
		} else {
			r = lookup(s, p, end)
		}
		ph.hits[k] = anchorHit{b: b, j: j, end: end, r: r}
		k += int(oneIf(r&anchorRoles != 0))
		// On to the next block when this one has no candidate left.
		next := anchored & (anchored - 1)
		nextB := uint64(bits.TrailingZeros64(next) & (chunkBlocks - 1))
		nextM := aw[nextB]
		done := oneIf(m == 0)
		anchored = selectIf(done, next, anchored)
		b = int(selectIf(done, nextB, uint64(b)))
		m = selectIf(done, nextM, m)
		if anchored == 0 {
			return k, 0
		}
	}
	aw[b] = m
	return k, anchored
}

// selectIf is a when c is 1, else b (c is 0 or 1), with no branch.
func selectIf(c, a, b uint64) uint64 { return b ^ (a^b)&-c }

// oneIf is 1 when c holds, else 0, made with no branch (SETcc).
func oneIf(c bool) uint64 {
	var u uint64
	if c {
		u = 1
	}
	return u
}
