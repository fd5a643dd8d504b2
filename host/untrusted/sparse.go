package untrusted

import (
	"math/bits"
	"sync"
)

// screenSparse is Screen by bit masks, 64 bytes a block (blockMasks,
// vectorMasks), with the same findings as the byte scan (screenScan):
//
//  1. markup and invisible characters at the special bytes, in order;
//     the bytes a lead byte steps over (a malformed or whole sequence)
//     are taken out of the letters, as the scan never sees them;
//  2. words are the starts of letter runs, counted by popcount;
//  3. the phrase rules run only over the words within the window of an
//     anchor (anchors.go), windows closer than maxBack words merged.
//
// Running the rules over a subset of the words in order gives the same
// findings when the subset holds every anchor's window: a rule fires only
// with its anchor at most 16 words before, and then every word its
// checks read lies in that window; the checks elsewhere can only come
// out false, since a word left out only makes a role look older (the one
// check that is no such bound, modalAfterAI, runs only with a modal,
// itself an anchor, within 6 words).
func screenSparse(s string) Verdict {
	nb := (len(s) + 63) / 64
	buf := getMasks(3 * nb)
	defer putMasks(buf)
	letter, special, anchor := (*buf)[:nb], (*buf)[nb:2*nb], (*buf)[2*nb:]
	for b := vectorMasks(s, letter, special, anchor); b < nb; b++ {
		letter[b], special[b], anchor[b] = blockMasks(s, 64*b)
	}
	var f found
	starts := specials(&f, s, letter, special)
	for b := range anchor {
		anchor[b] &= starts[b]
	}
	phrases(&f, s, starts, anchor)
	return f.verdict()
}

// specials judges the markup and invisible characters at the special
// bytes in order, and turns letter into the word starts (in place).
func specials(f *found, s string, letter, special []uint64) []uint64 {
	skipUntil, zwEnd, zwStart, zwRun := 0, -1, 0, 0
	var carry uint64 // skipped bits of the next block
	prevTop := uint64(0)
	for b := range letter {
		l := letter[b] &^ carry
		carry = 0
		for sp := special[b]; sp != 0; sp &= sp - 1 {
			j := bits.TrailingZeros64(sp)
			p := 64*b + j
			if p < skipUntil {
				continue
			}
			if class[s[p]] == clsMarkup {
				markupAt(f, s, p)
				continue
			}
			size, kind := invisibleAt(s, p)
			switch kind {
			case invZeroWidth:
				// A run goes on only with nothing between: any byte the
				// scan sees in between ends it.
				if p != zwEnd {
					zwRun, zwStart = 0, p
				}
				zwRun++
				if zwRun == 2 {
					f.add(KindZeroWidthRun, zwStart)
				}
				zwEnd = p + size
			case invTag:
				f.add(KindUnicodeTags, p)
			case invBidi:
				f.add(KindBidiControls, p)
			}
			if kind != invZeroWidth {
				zwEnd = -1
			}
			if size > 1 {
				skipUntil = p + size
				// Bits j+1 .. j+size-1, some maybe in the next block.
				m := (uint64(1)<<(size-1) - 1) << (j + 1)
				l &^= m
				if j+size > 64 {
					carry = (uint64(1)<<(size-1) - 1) >> (64 - j - 1)
				}
			}
		}
		letter[b] = l &^ (l<<1 | prevTop)
		prevTop = l >> 63
	}
	return letter
}

// phrases runs the rules over the words of the anchors' windows. starts
// are the word starts, anchor the starts where the filter passed.
func phrases(f *found, s string, starts, anchor []uint64) {
	w := newWords()
	fd := feeder{starts: starts, s: s, f: f, w: &w}
	lo, hi := 0, -1 // the pending region of words, by index (from 1)
	count := 0      // words before block b
	for b, m := range anchor {
		for ; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			p := 64*b + j
			end := wordEnd(s, p)
			r := lookup(s, p, end)
			if r&anchorRoles == 0 {
				continue
			}
			idx := count + bits.OnesCount64(starts[b]&(1<<j-1)) + 1
			back, fwd := window(r)
			wl, wh := idx-back, idx+fwd
			switch {
			case hi < 0:
				lo, hi = wl, wh
			case wl <= hi+maxBack:
				// Close enough that a later window may reach back over
				// both: one region (the words between are run too).
				lo, hi = min(lo, wl), max(hi, wh)
			default:
				fd.run(lo, hi)
				lo, hi = wl, wh
			}
		}
		count += bits.OnesCount64(starts[b])
	}
	if hi >= 0 {
		fd.run(lo, hi)
	}
}

// feeder gives the words of a region to the rules, moving forward only.
type feeder struct {
	s      string
	starts []uint64
	f      *found
	w      *words
	b      int // the block at the cursor
	count  int // words before block b
}

// run gives the rules the words with indexes lo to hi.
func (fd *feeder) run(lo, hi int) {
	lo = max(lo, 1)
	starts, s := fd.starts, fd.s
	for fd.b < len(starts) && fd.count+bits.OnesCount64(starts[fd.b]) < lo {
		fd.count += bits.OnesCount64(starts[fd.b])
		fd.b++
	}
	if fd.b == len(starts) {
		return
	}
	m := starts[fd.b]
	for k := fd.count + 1; k < lo; k++ {
		m &= m - 1
	}
	for idx := lo; idx <= hi; idx++ {
		for m == 0 {
			fd.count += bits.OnesCount64(starts[fd.b])
			fd.b++
			if fd.b == len(starts) {
				return
			}
			m = starts[fd.b]
		}
		p := 64*fd.b + bits.TrailingZeros64(m)
		m &= m - 1
		end := wordEnd(s, p)
		if mayBeVocab(s, p, end) {
			fd.w.idx = idx
			fd.w.word(fd.f, s, p, end)
		}
	}
}

// wordEnd is the end of the letter run from i.
func wordEnd(s string, i int) int {
	for i < len(s) && class[s[i]] == clsLetter {
		i++
	}
	return i
}

// mayBeVocab is the vocabulary filter of the byte scan (vocabFirst,
// vocabFilter) for the word s[i:j].
func mayBeVocab(s string, i, j int) bool {
	switch l := j - i; {
	case l == 1:
		return vocabFirst[s[i]|0x20]
	case l > maxWord:
		return false
	}
	return vocabFilter.has(wordKey(s, i, j))
}

// The masks of a 1 MiB text are 384 KiB: kept for the next text.
var masksPool sync.Pool

func getMasks(n int) *[]uint64 {
	if p, ok := masksPool.Get().(*[]uint64); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]uint64, n)
	return &b
}

func putMasks(p *[]uint64) { masksPool.Put(p) }
