package untrusted

import (
	"math"
	"math/bits"
	"strings"
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
// itself an anchor, within 6 words). A window's words after a modal or
// a telling word, and an instruction word's beyond the one before it,
// are in the subset whenever a rule they serve can fire: the rule is
// armed only by words the window holds (an AI name, a negation, the
// word "system" just before), and the rules see them before the words
// after (ahead, window). A modal's 4 words before serve only to arm it
// (an AI name among them): they are in the subset when one of them may
// be one (aiBefore). And an anchor's window opens only when the words
// next to it let a rule it serves fire (window: "developer" before
// "mode", "new" or "system" before an instruction word, ...): a window
// left closed holds no word a firing rule reads, and a modal it leaves
// out cannot make the action rule fire or not (window's comment).
//
// The text is taken a chunk at a time (chunkBlocks blocks, 4 KiB): its
// masks are made into fixed arrays, judged, and dropped, so they stay in
// the first-level cache and a page of a megabyte allocates four objects,
// 1.6 KB (the three arrays and the chunk's sum, on the heap because
// masksOf is a variable; TestScreenSparseAllocatesPerCallNotPerChunk);
// masks for the whole text were 384 KiB a MiB, from a pool the GC
// empties: a fresh allocation, zeroed, in most calls. What crosses a
// chunk's edge is carried in specialState and phraseState.
//
// The same pass finds where boundary (the envelope's) first occurs in
// s, -1 when nowhere: searched for a chunk at a time while the chunk's
// text is in the first-level cache from making its masks, so the
// envelope needs no pass of its own over a large text ("" for none).
func screenSparse(s, boundary string) (Verdict, int) {
	var f found
	sp := specialState{zwEnd: -1}
	ph := phraseState{f: &f, s: s, w: newWords(), base: 1}
	var letter, special, anchor [chunkBlocks]uint64
	at := -1
	first := byte(0)
	if boundary != "" {
		first = boundary[0]
	}
	nb := (len(s) + 63) / 64
	// One sum for every chunk: masksOf is a variable (the tests set it),
	// so the sum it is given escapes, and a sum declared in the loop was
	// an allocation a chunk, 256 a MiB (stop 56).
	var sum chunkSum
	for b0 := 0; b0 < nb; b0 += chunkLen {
		n := min(chunkLen, nb-b0)
		l, spc, a := letter[:n], special[:n], anchor[:n]
		sum = chunkSum{top: ph.prevTop, first: first}
		nv := masksOf(s, b0, l, spc, a, &sum)
		tailMasks(s, b0, nv, l, spc, a, &sum)
		// The boundary starts in the chunk only where its first byte
		// is: the vector pass found none in its blocks when firstAt
		// is 0 (most chunks: the byte is a rare capital, rareFirst).
		// Measured against the kernel without this compare and the
		// boundary searched apart (per chunk, or once over the text):
		// the kernel was 10-15 µs a MiB faster, the search cost 15-20
		// back, ScreenFor no faster and the in-call screener no
		// cheaper (stop 53). Two kernel constants fewer (sign tests for
		// 0x80 and the letter bit) made it slower, so its spills are
		// not what bounds it (it had 14 byte permutes a block; 8 since
		// stop 63).
		if at == -1 && boundary != "" && (sum.firstAt != 0 || nv < n) {
			at = boundaryIn(s, boundary, 64*b0, 64*(b0+n))
		}
		// The specials are judged first, when the chunk has any or one
		// before stepped over into it. Where they took no letter out
		// (nearly always: only malformed UTF-8 steps over letters), the
		// letters are as the vector pass made them, and so its sums
		// (most chunks of prose have a special: '\n\n', '"', a dash;
		// they were counted again, a third of the screener outside its
		// kernel, until stop 58). Else chunk counts the words, and the
		// anchors of the blocks whose letters changed, and of the
		// blocks after them, are made again at their new word starts.
		words := sum.words
		if nv < n || sum.withSpecial != 0 || sp.carry != 0 {
			if changed := sp.run(&f, s, b0, l, spc, sum.withSpecial); changed != 0 || nv < n {
				sum.anchored = anchorsAgain(s, b0, l, a, changed|changed<<1, ph.prevTop, sum.anchored)
				words = -1
			}
		}
		ph.chunk(b0, l, a, words, sum.anchored)
	}
	ph.keep(math.MaxInt)
	return f.verdict(), at
}

// tailMasks makes the masks of the chunk's blocks (from block b0) from
// block nv on, those the vector pass did not do, by blockMasks, and
// adds to sum their top, anchored and withSpecial bits (the others are
// not read when nv < n: the chunk's words are counted).
func tailMasks(s string, b0, nv int, letter, special, anchor []uint64, sum *chunkSum) {
	special, anchor = special[:len(letter)], anchor[:len(letter)]
	for b := nv; b < len(letter); b++ {
		letter[b], special[b], anchor[b] = blockMasks(s, 64*(b0+b), sum.top)
		sum.top = letter[b] >> 63
		sum.anchored |= nonZero(anchor[b]) << b
		sum.withSpecial |= nonZero(special[b]) << b
	}
}

// masksOf is vectorMasks. The tests make it its scalar form on a CPU
// without the vector code (vectorMasksScalar), so that the chunk sums and
// the passes they let screenSparse skip are tested there too.
var masksOf = vectorMasks

// boundaryIn is the first place from i, before j, where boundary starts
// in s, or -1.
func boundaryIn(s, boundary string, i, j int) int {
	if k := strings.Index(s[i:min(len(s), j+len(boundary)-1)], boundary); k >= 0 {
		return i + k
	}
	return -1
}

// chunkSum is what a chunk's words need besides its masks, added up by
// the vector pass as it makes them (vectorMasks): top, the letter bit
// before the chunk (in) and its last letter bit (out); words, its words;
// anchored, its blocks with an anchor bit (at a word start: bit b for
// block b, the first 64 blocks of a call; or'ed, as the others are);
// withSpecial, its blocks with a special bit, the same way (specialState.run
// walks them: made by the kernel beside its specials, where a loop over
// the chunk's masks was 9-11% of the screener's time in the call; stop
// 62).
// They are a chunk's own unless specialState.run took letters out of
// it (what the scan steps over: only malformed UTF-8 steps over
// letters); then phraseState.chunk counts.
// firstAt is not 0 when the byte first (in: the boundary's first byte)
// is in the blocks, by the vector pass only (the VBMI kernel's is its
// places, or'ed over the blocks; the AVX2 kernel's is only not 0).
type chunkSum struct {
	top, anchored, withSpecial, firstAt uint64
	words                               int
	first                               byte
}

// chunkBlocks is the most blocks of masks screenSparse holds at once:
// 4 KiB of text, 1.5 KiB of masks.
const chunkBlocks = 64

// chunkLen is the blocks of a chunk, chunkBlocks but in the tests, which
// make chunks of a block or two so that every block edge is a chunk's.
var chunkLen = chunkBlocks

// specialState is what specials carry from one block to the next.
type specialState struct {
	carry                            uint64 // the skipped bits of the next block
	changed                          uint64 // the blocks from b0 whose letters run changed
	b0                               int    // run's first block
	skipUntil, zwEnd, zwStart, zwRun int
}

// run judges the markup and invisible characters at the special bytes
// of blocks b0.. (letter, special; with, the blocks that have any,
// chunkSum's withSpecial) in order and takes out of letter the bytes the
// scan steps over. It returns the blocks whose letters it changed (bit b
// for block b: a letter stepped over, only in malformed UTF-8), noted by
// judge. (Those chunks' words are then counted by phraseState.chunk,
// which counted them again when run did too: stop 56.)
//
// carry is kept in a register over the blocks and the specials judged
// out of line (judge): most blocks have none.
func (st *specialState) run(f *found, s string, b0 int, letter, special []uint64, with uint64) (changed uint64) {
	carry := st.carry
	special = special[:len(letter)]
	st.b0, st.changed = b0, 0
	// The blocks to judge: those with a special byte, walked by their
	// bits (a test of each block's mask was taken for one block in six
	// of prose, at random: a mispredict each, 7% of the screener's time
	// in the call; stop 61), and the block after one whose last
	// character runs into it (carry).
	with |= nonZero(carry)
	for ; with != 0; with &= with - 1 {
		b := bits.TrailingZeros64(with)
		letter[b], carry = st.judge(f, s, 64*(b0+b), letter[b], special[b], carry)
		if b+1 < len(letter) {
			with |= nonZero(carry) << (b + 1)
		}
	}
	st.carry = carry
	return st.changed
}

// anchorsAgain makes again the anchor bits of the chunk's blocks in set
// (bit b for block b), blocks b0.., at their word starts by letter as
// specials left it (top, the letter bit before the chunk). A letter
// stepped over may make the next one start a word, in its block or at
// the next block's first byte ("x\xf3\xa0\x80bignore": "ignore" starts a
// word once the tag character's last byte "b" is stepped over; an E2 or
// EF steps over no letter since stop 59, invisibleAt), whose anchor bit the kernel left out;
// and a letter stepped over was no word start. Rare (run's changed).
// It returns anchored, the chunk's blocks with an anchor bit
// (chunkSum's), with those of set made true.
func anchorsAgain(s string, b0 int, letter, anchor []uint64, set, top, anchored uint64) uint64 {
	anchor = anchor[:len(letter)]
	for ; set != 0; set &= set - 1 {
		b := bits.TrailingZeros64(set)
		if b >= len(letter) {
			break
		}
		if b > 0 {
			top = letter[b-1] >> 63
		}
		l, a := letter[b], uint64(0)
		for st := l &^ (l<<1 | top); st != 0; st &= st - 1 {
			if j := bits.TrailingZeros64(st); anchorAt(s, 64*(b0+b)+j) {
				a |= 1 << j
			}
		}
		anchor[b] = a
		anchored = anchored&^(1<<b) | nonZero(a)<<b
	}
	return anchored
}

// judge judges the special bytes sp of the block at byte p0 in order;
// l is the block's letters, in the bytes stepped over into it from the
// block before. It returns l without the bytes the scan steps over, and
// those of them in the next block (its carry), and notes in changed
// whether it took a letter out. (Noted here, where letters are taken
// out, and not in run: a mask live over run's loop made each block of
// it an instruction longer, 17 K a MiB of prose.)
func (st *specialState) judge(f *found, s string, p0 int, l, sp, in uint64) (_, carry uint64) {
	if l&in != 0 {
		st.changed |= 1 << (p0/64 - st.b0)
	}
	l &^= in
	for ; sp != 0; sp &= sp - 1 {
		j := bits.TrailingZeros64(sp)
		p := p0 + j
		if p < st.skipUntil {
			continue
		}
		if class[s[p]] == clsMarkup {
			// The quick key first: the VBMI kernels keep a markup byte by
			// its next and the byte two after it (gateThird), and on the
			// guides page 1,071 markup bytes a MiB passed the three bytes
			// alone to markupAt, 397 of them to turnAt; the quick key
			// passes 141 and 59 (the AVX2 kernels' bytes passed it
			// already). 0.94-0.96 of the screener's time in the call
			// (stop 61).
			if mayOpenMarkupQuick(s, p) && mayOpenMarkup(s, p) {
				markupAt(f, s, p)
			}
			continue
		}
		size, kind := invisibleAt(s, p)
		switch kind {
		case invZeroWidth:
			// A run goes on only with nothing between: any byte the
			// scan sees in between ends it.
			if p != st.zwEnd {
				st.zwRun, st.zwStart = 0, p
			}
			st.zwRun++
			if st.zwRun == 2 {
				f.add(KindZeroWidthRun, st.zwStart)
			}
			st.zwEnd = p + size
		case invTag:
			f.add(KindUnicodeTags, p)
		case invBidi:
			f.add(KindBidiControls, p)
		}
		if kind != invZeroWidth {
			st.zwEnd = -1
		}
		if size > 1 {
			st.skipUntil = p + size
			// Bits j+1 .. j+size-1, some maybe in the next block.
			m := (uint64(1)<<(size-1) - 1) << (j + 1)
			if l&m != 0 {
				st.changed |= 1 << (p0/64 - st.b0)
			}
			l &^= m
			if j+size > 64 {
				carry = (uint64(1)<<(size-1) - 1) >> (64 - j - 1)
			}
		}
	}
	return l, carry
}

// phraseState runs the rules over the words of the anchors' windows, in
// order, a chunk at a time. The words a window needs are noted in need
// (bit t for word base+t) and given to the rules once no later window
// can reach back to them: a later anchor comes after this one, and no
// window reaches back more than maxBack words. So at a chunk's end every
// needed word but the last maxBack is given, and those are remembered by
// their starts (ring): the next chunk finds every word it gives either
// there or in its own masks.
type phraseState struct {
	f    *found
	s    string
	w    words
	base int
	need uint64

	count   int    // the words before the block at hand
	prevTop uint64 // the top letter bit of the block before it
	ring    [8]int // ring[i&7] is the start of word i, for the last maxBack words before the chunk

	// The ring is filled when read (ringAt) when the chunk before
	// ended with a block holding its last maxBack words (most do):
	// remember then notes that block (its letters tail, their top bit
	// before, where it starts) and the last word's index, and the
	// ring is filled from them only if a later chunk reads it (few
	// do: the line page's never). Filled at every chunk's end, it was
	// ~115 instructions a chunk, 30 K a MiB (stop 58).
	tail, tailTop     uint64
	tailAt, tailCount int
	tailed            bool

	// The chunk at hand (blocks b0..) and the cursor over its words.
	b0      int
	letter  []uint64
	before  int    // the words before the chunk
	topIn   uint64 // prevTop at the chunk's start
	cb      int    // the cursor's block in the chunk (-1 before the first)
	cstarts uint64 // the word starts of block cb not passed yet
	ccount  int    // the words passed

	// counts[b] is the words before the chunk's block b (from the
	// text's start), so that the cursor steps over blocks by a compare
	// each. Noted for counts[:counted+1] only: every block when the
	// chunk's words are counted (countAll), else only as far as an
	// index was wanted (countTo: an open window's anchor or a neighbour
	// looked up), and by run as far as the last word it gives
	// (countUntil). Until stop 59 every block was counted when words
	// were still needed at the chunk's end, most of them after the last
	// word given (0.8-1.4% of the screener on prose and Markdown).
	counts  [chunkBlocks + 1]int
	counted int

	// The words looked up when their windows were noted (the anchors
	// whose windows opened, and the words next to an anchor that
	// window looked at), by index: looked[i&7] holds word i when its
	// idx is i, so that judge need not find its end and roles again.
	// An anchor's entry is written after keep gave the words before
	// i-maxBack, so word i-8 was given and is not lost; a neighbour's is
	// written by window before that keep, and may take the slot of a
	// word not given yet, which judge then finds again. Every entry
	// stays true (an index matches one word only; a word noted and then
	// not given is none of the rules' business).
	looked [8]lookedUp
}

// lookedUp is a word's end and roles, by its index.
type lookedUp struct {
	idx, end int
	roles    uint32
}

// lookup is the roles of word idx, which starts at p, noted in looked.
func (ph *phraseState) lookup(idx, p int) uint32 {
	end, in := ph.endIn(p)
	if !in {
		end = ph.endPast(p)
	}
	r := lookup(ph.s, p, end)
	ph.looked[idx&7] = lookedUp{idx: idx, end: end, roles: r}
	return r
}

// chunk notes the windows of the anchors of blocks b0.. (letter as
// specials left them, anchor the filter's bits at their word starts;
// words, their words, as the vector pass added them up, or -1 when it
// did not; anchored, the blocks with an anchor bit, chunkSum's) and
// gives the words no later window needs.
func (ph *phraseState) chunk(b0 int, letter, anchor []uint64, words int, anchored uint64) {
	ph.b0, ph.letter, ph.before, ph.topIn = b0, letter, ph.count, ph.prevTop
	ph.cb, ph.cstarts, ph.ccount = -1, 0, ph.count
	if anchored == 0 && ph.need == 0 && words >= 0 {
		// No window starts here and no word is needed (most chunks
		// of ordinary prose): the words were counted by the vector
		// pass.
		ph.count, ph.prevTop = ph.count+words, letter[len(letter)-1]>>63
		ph.keep(ph.count + 1 - maxBack)
		ph.remember()
		return
	}
	// The anchors, a block at a time. A window's words are noted by
	// their indexes, but most anchors open none (window looks at the
	// words next to one by the blocks' word starts): an anchor's index
	// is counted only when its window opens (countTo), and a chunk
	// whose words the vector pass counted is counted no further than
	// its last open window (most of its blocks when it has none). A
	// chunk whose words the vector pass did not count (its specials
	// changed its letters) has every block's words counted, in a loop
	// with no call (countAll; the same loop over a part of the blocks
	// costs about as much a block: an instruction or two fewer than the
	// popcount's feature check and the loop's own under GOAMD64=v1).
	ph.counts[0], ph.counted = ph.count, 0
	letter = letter[:len(anchor)]
	if words < 0 {
		ph.countAll()
	}
	s := ph.s
	// The masks as arrays, indexed by b masked to 0..63: no bounds
	// check a block (screenSparse's are arrays of chunkBlocks). The
	// blocks past the chunk's (an earlier chunk's masks) are never
	// read: anchored is cut to the chunk's (the kernels set no bit
	// past it; this makes sure, for 2 instructions a chunk).
	aw := (*[chunkBlocks]uint64)(anchor[:chunkBlocks])
	lw := (*[chunkBlocks]uint64)(letter[:chunkBlocks])
	anchored &= ^uint64(0) >> (64 - len(letter))
	// The blocks with an anchor bit, by the vector pass's bit a block
	// (a test of every block's mask was about one block in five taken,
	// at random: a mispredict each; stop 59).
	for ; anchored != 0; anchored &= anchored - 1 {
		b := bits.TrailingZeros64(anchored) & (chunkBlocks - 1)
		m, at, l := aw[b], 64*(b0+b), lw[b]
		for ; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			p := at + j
			// The word's letters in its block (endIn's, with the block
			// known), and in the next when it runs into it (about one
			// candidate in ten on prose; by the bytes, endPast, from
			// the chunk's last block); looked up inline (anchorFirst,
			// and by its last eight letters when longer: rolesAt) when
			// it has eight bytes of the text from it. (A word that ran
			// into the next block went to endPast and anchorLookup,
			// ~120 instructions.) n is past the word when the next
			// block's letters all are (n ≥ 64: no anchor).
			var r uint32
			n := bits.TrailingZeros64(^(l >> j))
			if j+n == 64 {
				if b+1 < len(letter) {
					n += bits.TrailingZeros64(^lw[(b+1)&(chunkBlocks-1)])
				} else {
					n = ph.endPast(p) - p
				}
			}
			end := p + n
			if p+8 <= len(s) {
				if e := anchorFirst(load8(s, p), n); e != nil {
					r = e.roles
					if n > 8 {
						r = e.rolesAt(s, end)
					}
				}
			} else {
				r = anchorLookup(s, p, end)
			}
			if r&anchorRoles == 0 {
				continue
			}
			starts := ph.startsOf(b)
			back, fwd := ph.window(b, j, starts, r)
			if back < 0 {
				continue // no rule it serves can fire (window)
			}
			ph.countTo(b + 1)
			idx := ph.counts[b] + bits.OnesCount64(starts&(1<<j-1)) + 1
			ph.keep(idx - maxBack)
			// After keep: the word in its slot (idx-8) was given.
			ph.looked[idx&7] = lookedUp{idx: idx, end: end, roles: r}
			lo := max(idx-back, 1)
			ph.need |= (1<<(fwd+idx-lo+1) - 1) << (lo - ph.base)
		}
	}
	// The chunk's words (run counts the blocks of those keep gives).
	if words >= 0 {
		ph.count = ph.before + words
	} else {
		ph.count = ph.counts[len(letter)]
	}
	ph.prevTop = letter[len(letter)-1] >> 63
	// An anchor of a later chunk is word count+1 at the earliest.
	ph.keep(ph.count + 1 - maxBack)
	ph.remember()
}

// startsOf is the word starts of the chunk's block b.
func (ph *phraseState) startsOf(b int) uint64 {
	letter := ph.letter
	l, top := letter[b], ph.topIn
	if b > 0 {
		top = letter[b-1] >> 63
	}
	return l &^ (l<<1 | top)
}

// countTo notes in counts the words before each of the chunk's blocks
// up to block b, from the last noted.
func (ph *phraseState) countTo(b int) {
	c := ph.counted
	if c >= b {
		return
	}
	n, top := ph.counts[c], ph.topIn
	if c > 0 {
		top = ph.letter[c-1] >> 63
	}
	letter := ph.letter[c:b]
	counts := ph.counts[c+1 : b+1]
	counts = counts[:len(letter)]
	for i, l := range letter {
		n += bits.OnesCount64(l &^ (l<<1 | top))
		top = l >> 63
		counts[i] = n
	}
	ph.counted = b
}

// countUntil notes in counts the words before each of the chunk's
// blocks from the last noted, up to the block that holds word hi (or the
// chunk's last).
func (ph *phraseState) countUntil(hi int) {
	c := ph.counted
	n, top := ph.counts[c], ph.topIn
	if n >= hi || c == len(ph.letter) {
		return
	}
	if c > 0 {
		top = ph.letter[c-1] >> 63
	}
	for _, l := range ph.letter[c:] {
		n += bits.OnesCount64(l &^ (l<<1 | top))
		top = l >> 63
		c++
		ph.counts[c] = n
		if n >= hi {
			break
		}
	}
	ph.counted = c
}

// countAll notes in counts the words before each of the chunk's blocks.
func (ph *phraseState) countAll() {
	n, top := ph.counts[0], ph.topIn
	letter := ph.letter
	counts := ph.counts[1 : len(letter)+1]
	for b, l := range letter {
		n += bits.OnesCount64(l &^ (l<<1 | top))
		top = l >> 63
		counts[b] = n
	}
	ph.counted = len(letter)
}

// aiBefore reports whether one of the 4 words before the anchor at bit
// j of the chunk's block b (starts, that block's word starts) may be an
// AI name (mayBeAI): whether a modal's window reaches back 4 words
// (window). Those words are in the chunk at or before block b, found by
// the blocks' word starts, or among the last before it (ring). Each is
// tested by its first two letters first (aiPair: no end needed; s[p+1]
// is before the anchor), which few words of prose pass. window first
// tests all four at once by their first three bytes (aiNear) when they
// are in the chunk's blocks b-1 and b (most), and asks aiBefore only
// when that passes.
func (ph *phraseState) aiBefore(b, j int, starts uint64) bool {
	s, at := ph.s, 64*(ph.b0+b) // the text, and where block b starts
	m := starts & (1<<j - 1)    // the word starts before the anchor's in b
	for k := 4; k > 0; k-- {
		for m == 0 { // in an earlier block of the chunk, or before it
			if b == 0 {
				return ph.aiInRing(k)
			}
			b, at = b-1, at-64
			m = ph.startsOf(b)
		}
		t := 63 - bits.LeadingZeros64(m)
		m &^= 1 << t
		if p := at + t; aiPair(s, p) && ph.mayBeAIAt(p) {
			return true
		}
	}
	return false
}

// aiNear is false when none of the 4 words before the anchor at bit j
// of the chunk's block b (b ≥ 1; starts, that block's word starts) is an
// AI name by its first three bytes (aiTriples), found in the 64 bytes
// before the anchor by their word starts: a test of each word with no
// branch, where aiBefore's loop had a few that went either way (most
// modals have no AI name before them). It is true when those bytes hold
// fewer than 4 word starts. The slice of the text is one bounds check
// (the anchor has three letters at least: minAnchor) and its indexes,
// masked to 0..63, none.
func (ph *phraseState) aiNear(b, j int, starts uint64) bool {
	j &= 63
	// Bit i of w is byte i of v: the 64 bytes before the anchor, and
	// its first three (a word's third byte is before the anchor's
	// fourth).
	w := starts<<(63-j)<<1 | ph.startsOf(b-1)>>j
	p0 := 64*(ph.b0+b) + j - 64
	v := ph.s[p0 : p0+67]
	x := w & (w - 1)
	x &= x - 1
	if x&(x-1) == 0 { // fewer than 4
		return true
	}
	t1 := uint(63-bits.LeadingZeros64(w)) & 63
	w &^= 1 << t1
	t2 := uint(63-bits.LeadingZeros64(w)) & 63
	w &^= 1 << t2
	t3 := uint(63-bits.LeadingZeros64(w)) & 63
	w &^= 1 << t3
	t4 := uint(63-bits.LeadingZeros64(w)) & 63
	hit := aiTriple(v[t1:]) | aiTriple(v[t2:]) | aiTriple(v[t3:]) | aiTriple(v[t4:])
	return hit&1 != 0
}

// aiTriple's bit 0 is aiTriples' bit for the word at the start of v
// (four bytes from it: one load; the fourth is not looked at).
func aiTriple(v string) uint32 {
	x := uint32(v[0]) | uint32(v[1])<<8 | uint32(v[2])<<16 | uint32(v[3])<<24
	return aiTriples[x&31<<5|x>>8&31] >> (x >> 16 & 31)
}

// aiTriples[pairOf(w, 0)] has bit c for each AI name w whose third
// letter's low five bits are c, every bit for one of two letters (its
// third byte may be any): a word is no AI name when the entry of its
// pair lacks its third byte's bit. 4 KiB.
var aiTriples = func() (t [1 << 10]uint32) {
	for w, r := range vocabulary {
		if r&rAI != 0 {
			third := uint32(1<<32 - 1)
			if len(w) > 2 {
				third = 1 << (w[2] & 31)
			}
			t[pairOf(w, 0)] |= third
		}
	}
	return
}()

// aiInRing is aiBefore of the last k words before the chunk.
func (ph *phraseState) aiInRing(k int) bool {
	for i := ph.before; i > ph.before-k && i >= 1; i-- {
		if p := ph.ringAt(i); aiPair(ph.s, p) && ph.mayBeAIAt(p) {
			return true
		}
	}
	return false
}

// aiPair reports whether the word that starts at p, before an anchor,
// has an AI name's first two letters (pairRoles: a 32-bit load and a
// test, where a bit set of the AI names' pairs alone was an index, a
// load and a bit test: stop 58).
func aiPair(s string, p int) bool {
	return pairRoles[pairOf(s, p)]&rAI != 0
}

// mayBeAIAt is mayBeAI of the word that starts at p.
func (ph *phraseState) mayBeAIAt(p int) bool {
	end, in := ph.endIn(p)
	if !in {
		end = ph.endPast(p)
	}
	return mayBeAI(ph.s, p, end)
}

// index is the index of the word that starts at bit t of the chunk's
// block b (counting the blocks' words up to it: countTo).
func (ph *phraseState) index(b, t int) int {
	ph.countTo(b + 1)
	return ph.counts[b] + bits.OnesCount64(ph.startsOf(b)&(1<<t-1)) + 1
}

// keep gives the needed words before word k, in order, and moves base
// up to k. A word given may need words after it (ahead): they are noted
// in need as it is given, and given here too when before k. (Such a
// word is an anchor: when it was noted, keep moved base up to maxBack
// words before it, so its ahead, 16 words at most, is within need's 64
// bits.)
func (ph *phraseState) keep(k int) {
	for ph.base < k {
		if ph.need == 0 {
			ph.base = k
			return
		}
		t := bits.TrailingZeros64(ph.need)
		if t >= k-ph.base {
			ph.need >>= k - ph.base
			ph.base = k
			return
		}
		ph.need >>= t
		ph.base += t
		n := min(bits.TrailingZeros64(^ph.need), k-ph.base)
		ph.run(ph.base, ph.base+n-1)
		ph.need >>= n
		ph.base += n
	}
}

// remember notes in ring the starts of the chunk's last words, up to
// maxBack of them (the ring's older ones stay when the chunk has fewer):
// at once, or by its last block when that holds them (tailed).
func (ph *phraseState) remember() {
	last := len(ph.letter) - 1
	l, top := ph.letter[last], ph.topIn
	if last > 0 {
		top = ph.letter[last-1] >> 63
	}
	if bits.OnesCount64(l&^(l<<1|top)) >= maxBack {
		ph.tail, ph.tailTop, ph.tailAt, ph.tailCount, ph.tailed = l, top, 64*(ph.b0+last), ph.count, true
		return
	}
	// The ring's older ones first (they stay when the chunk has fewer).
	ph.fill()
	idx, oldest := ph.count, ph.count-maxBack // the ring's words: oldest+1 ..
	for b := last; b >= 0 && idx > ph.before && idx > oldest; b-- {
		top := ph.topIn
		if b > 0 {
			top = ph.letter[b-1] >> 63
		}
		at, l := 64*(ph.b0+b), ph.letter[b]
		idx = ph.ringFrom(at, l&^(l<<1|top), idx, oldest)
	}
}

// ringFrom notes in ring the starts st of the block at byte at, from
// the last, as words idx, idx-1, ... down to oldest+1, and returns the
// index of the word before the first noted.
func (ph *phraseState) ringFrom(at int, st uint64, idx, oldest int) int {
	for ; st != 0 && idx > oldest; idx-- {
		j := 63 - bits.LeadingZeros64(st)
		ph.ring[idx&7] = at + j
		st &^= 1 << j
	}
	return idx
}

// fill fills the ring from the block remember noted (tailed).
func (ph *phraseState) fill() {
	if ph.tailed {
		ph.ringFrom(ph.tailAt, ph.tail&^(ph.tail<<1|ph.tailTop), ph.tailCount, ph.tailCount-maxBack)
		ph.tailed = false
	}
}

// ringAt is the start of word i, one of the last maxBack before the
// chunk.
func (ph *phraseState) ringAt(i int) int {
	ph.fill()
	return ph.ring[i&7]
}

// run gives the rules the words with indexes lo to hi: those before the
// chunk from the ring, the others from the chunk's masks, by a cursor
// that moves forward only.
func (ph *phraseState) run(lo, hi int) {
	idx := lo
	for ; idx <= hi && idx <= ph.before; idx++ {
		ph.judge(idx, ph.ringAt(idx))
	}
	// The cursor in locals, and counts as a slice of the chunk's
	// blocks (after, block b's end), so that the search for a later
	// block is a load and a compare a block (stop 56).
	cb, cstarts, ccount := ph.cb, ph.cstarts, ph.ccount
	if idx <= hi {
		ph.countUntil(hi)
	}
	after := ph.counts[1 : ph.counted+1]
	for ; idx <= hi; idx++ {
		if cb < 0 || idx > after[cb] {
			// Word idx is in a later block.
			b := cb + 1
			for b < len(after) && after[b] < idx {
				b++
			}
			if b == len(after) {
				break // past the text's last word
			}
			cb, cstarts, ccount = b, ph.startsOf(b), ph.counts[b]
		}
		for ; ccount+1 < idx; ccount++ {
			cstarts &= cstarts - 1
		}
		p := 64*(ph.b0+cb) + bits.TrailingZeros64(cstarts)
		cstarts &= cstarts - 1
		ccount++
		ph.judge(idx, p)
	}
	ph.cb, ph.cstarts, ph.ccount = cb, cstarts, ccount
}

// judge gives the rules word idx, which starts at p, when it may be a
// vocabulary word.
func (ph *phraseState) judge(idx, p int) {
	if l := &ph.looked[idx&7]; l.idx == idx {
		// Looked up when its window was noted.
		if l.roles != 0 {
			ph.w.idx = idx
			ph.w.roles(ph.f, ph.s, p, l.end, l.roles)
			ph.ahead(idx)
		}
		return
	}
	end, in := ph.endIn(p)
	if !in {
		end = ph.endPast(p)
	}
	if mayBeVocab(ph.s, p, end) {
		ph.w.idx = idx
		ph.w.word(ph.f, ph.s, p, end)
		ph.ahead(idx)
	}
}

// ahead notes in need the words after word idx, just given to the
// rules, that they must see too (ahead).
func (ph *phraseState) ahead(idx int) {
	if n := ahead(&ph.w, idx); n != 0 {
		// Words idx+1 to idx+n, none given yet (keep).
		ph.need |= (1<<n - 1) << (idx + 1 - ph.base)
	}
}

// endIn is the end of the word that starts at p when it ends in the
// chunk's block it starts in (most words): its run of letters, by the
// block's mask. It is small enough to be inlined where the words are
// taken: a call was two of every three of its instructions (stop 56).
func (ph *phraseState) endIn(p int) (int, bool) {
	b, j := uint(p>>6)-uint(ph.b0), uint(p)&63
	if b >= uint(len(ph.letter)) {
		return 0, false
	}
	run := uint(bits.TrailingZeros64(^(ph.letter[b] >> j)))
	return p + int(run), j+run < 64
}

// endPast is the end of the word that starts at p when endIn cannot
// tell: by the chunk's masks, and past them (a word before the chunk or
// running out of it) by the bytes. (The bytes a lead byte steps over
// never lie inside a word that starts before them, so the masks and the
// bytes end a word at the same byte.)
func (ph *phraseState) endPast(p int) int {
	if b := p/64 - ph.b0; b >= 0 && b < len(ph.letter) {
		for j := p % 64; b < len(ph.letter); b, j = b+1, 0 {
			if run := bits.TrailingZeros64(^(ph.letter[b] >> j)); j+run < 64 {
				return 64*(ph.b0+b) + j + run
			}
		}
		p = 64 * (ph.b0 + len(ph.letter))
	}
	for p < len(ph.s) && class[ph.s[p]] == clsLetter {
		p++
	}
	return p
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
