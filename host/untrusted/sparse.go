package untrusted

import (
	"math/bits"
	"sync"
)

// screenSparse is Screen by bit masks, 64 bytes a block (blockMasks,
// vectorMasks), with the same findings as the byte scan (ScreenScan):
//
//  1. markup and invisible characters at the special bytes, in order;
//     the bytes a lead byte steps over (a malformed or whole sequence)
//     are taken out of the letters, as the scan never sees them;
//  2. words are the starts of letter runs, counted by popcount;
//  3. the phrase rules run only over the words within some anchor's
//     window (anchors.go), in order, each once.
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
	specials(&f, s, letter, special, anchor)
	phrases(&f, s, letter, anchor)
	return f.verdict()
}

// specials judges the markup and invisible characters at the special
// bytes in order, takes out of letter the bytes the scan steps over, and
// keeps in anchor only word starts.
func specials(f *found, s string, letter, special, anchor []uint64) {
	prevTop := uint64(0)
	skipUntil, zwEnd, zwStart, zwRun := 0, -1, 0, 0
	var carry uint64 // skipped bits of the next block
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
		letter[b] = l
		anchor[b] &= l &^ (l<<1 | prevTop)
		prevTop = l >> 63
	}
}

// phrases runs the rules over the words of the anchors' windows, in
// order. letter are the letters the scan sees, anchor the word starts
// where the filter passed. The words a window needs are noted in need
// (bit t for word base+t) and given to the rules once no later window
// can reach back to them: a later anchor comes after this one, and no
// window reaches back more than maxBack words.
func phrases(f *found, s string, letter, anchor []uint64) {
	w := newWords()
	fd := newFeeder(f, &w, s, letter)
	base, need := 1, uint64(0)
	count := 0 // words before block b
	prevTop := uint64(0)
	last := len(anchor) - 1 // no word after the last anchor's block is needed
	for last >= 0 && anchor[last] == 0 {
		last--
	}
	for b, m := range anchor[:last+1] {
		starts := letter[b] &^ (letter[b]<<1 | prevTop)
		prevTop = letter[b] >> 63
		for ; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			p := 64*b + j
			r := lookup(s, p, fd.end(p))
			if r&anchorRoles == 0 {
				continue
			}
			idx := count + bits.OnesCount64(starts&(1<<j-1)) + 1
			if keep := idx - maxBack; keep > base {
				fd.give(base, need&(1<<min(keep-base, 63)-1))
				need >>= min(keep-base, 63)
				base = keep
			}
			back, fwd := window(r)
			lo := max(idx-back, 1)
			need |= (1<<(fwd+idx-lo+1) - 1) << (lo - base)
		}
		count += bits.OnesCount64(starts)
	}
	fd.give(base, need)
}

// feeder gives words to the rules, moving forward only.
type feeder struct {
	s      string
	letter []uint64
	f      *found
	w      *words
	b      int    // the block at the cursor
	starts uint64 // the word starts of block b not passed yet
	count  int    // the words passed
}

func newFeeder(f *found, w *words, s string, letter []uint64) feeder {
	fd := feeder{s: s, letter: letter, f: f, w: w}
	if len(letter) > 0 {
		fd.starts = letter[0] &^ (letter[0] << 1)
	}
	return fd
}

// give gives the rules the words base+t for each bit t of need.
func (fd *feeder) give(base int, need uint64) {
	for need != 0 {
		t := bits.TrailingZeros64(need)
		n := bits.TrailingZeros64(^(need >> t)) // a run of n words
		fd.run(base+t, base+t+n-1)
		need &^= (1<<n - 1) << t
	}
}

// run gives the rules the words with indexes lo to hi.
func (fd *feeder) run(lo, hi int) {
	for fd.count+bits.OnesCount64(fd.starts) < lo {
		fd.count += bits.OnesCount64(fd.starts)
		if !fd.next() {
			return
		}
	}
	for ; fd.count+1 < lo; fd.count++ {
		fd.starts &= fd.starts - 1
	}
	for idx := lo; idx <= hi; idx++ {
		for fd.starts == 0 {
			if !fd.next() {
				return
			}
		}
		p := 64*fd.b + bits.TrailingZeros64(fd.starts)
		fd.starts &= fd.starts - 1
		fd.count++
		end := fd.end(p)
		if mayBeVocab(fd.s, p, end) {
			fd.w.idx = idx
			fd.w.word(fd.f, fd.s, p, end)
		}
	}
}

// next moves the cursor to the next block's word starts.
func (fd *feeder) next() bool {
	fd.b++
	if fd.b >= len(fd.letter) {
		fd.b, fd.starts = len(fd.letter), 0
		return false
	}
	l := fd.letter[fd.b]
	fd.starts = l &^ (l<<1 | fd.letter[fd.b-1]>>63)
	return true
}

// end is the end of the word that starts at p: its run of letters.
func (fd *feeder) end(p int) int {
	b, j := p/64, p%64
	for {
		run := bits.TrailingZeros64(^(fd.letter[b] >> j))
		if j+run < 64 || b+1 == len(fd.letter) {
			return 64*b + j + run
		}
		b, j = b+1, 0
	}
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
