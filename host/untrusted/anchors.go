package untrusted

import "math/bits"

// Every phrase rule needs, a few words before the word that completes
// it, a word of one of a few roles: its anchor. Ordinary prose has few
// anchors, so the sparse scan (sparse.go) runs the rules only over the
// words near one (window), found by a filter over the bytes at each
// word start (anchorAt; vectorMasks), and steps over the rest of the text by
// counting words.

// anchorRoles are the anchors' roles, one at least for each rule:
// override (ignore ... instructions), instruction words (new
// instructions, system prompt), mode (developer mode), vocatives (dear
// AI), you (you are an AI, you are now), modals (AI agents must call),
// telling words (do not tell the user) and now (you are now X, anything
// now). "anything" is none: its one rule fires at "now", whose window
// holds it, and as an anchor its window never opened; it cost the
// guides page 116 candidates a MiB and 75 window calls (stop 62).
const anchorRoles = rOverride | rInstr | rMode | rVocative | rYou | rModal | rTell | rNow

// window is the words, before and after an anchor with roles r (it
// starts at bit j of the chunk's block b, whose word starts are starts;
// its index is not needed, and counted only when the window opens:
// chunk), that the rules it may
// take part in look at (words.word): for each rule the anchor, the word
// completing it and every word its checks read; back is -1 when no rule
// the anchor serves can fire, so the rules need not be given even the
// anchor. The window is opened only when the words next to the anchor
// show that a rule it serves may fire (looked up now, noted in looked
// for when the rules are given them; chunk calls window before keep,
// and notes the anchor in looked only when its window opens: most do
// not), as follows; every check reads
// words the window then holds, so a rule that fires in the byte scan
// fires here (sparse.go), and a window left closed gives the rules
// nothing they could fire on:
//
//	override ... instr/prior (within 6)  one of the 6 words after may be
//	                                     an instruction word or "above"
//	                                     by its pair (overrideNear): the
//	                                     anchor, 6 after; else none
//	new instr; system (leak within 6     the word before the instruction
//	before) instr                        word is new (1 back) or system (6
//	                                     back: rolesBefore); else none. An
//	                                     override within 6 before fires
//	                                     through the override's window,
//	                                     which holds the instruction word
//	developer mode                       the word before is developer: 1
//	                                     back; else none
//	anything now                         the word before "now" is anything
//	                                     (1 back); else none ("anything" is
//	                                     no anchor: anchorRoles)
//	dear AI                              the word after is an AI name: 1
//	                                     after; else none
//	are you AI; you are|re (an) AI;      are|re just before "you" or 1 or 2
//	you are|re now X                     after it: 1 back, 3 after; else
//	                                     none (the AI rule fires at the AI
//	                                     name with the last are within 2
//	                                     before it and the last you within
//	                                     3: are is 1 before you, 1 after or
//	                                     2 after; "now" fires with are just
//	                                     before it and you just before
//	                                     that: 2 after you; X is read ahead)
//	AI (4 before) modal ... action       one of the 4 before may be an AI
//	                                     name (aiBefore): 4 back (6 after:
//	                                     ahead); else none
//	neg (2 before) tell ... user         one of the 2 before is a
//	                                     negation: 2 back (16 after:
//	                                     ahead); else none
//
// A word after the anchor that is not in the chunk (the anchor is among
// its last words) is not looked at: the window opens as if it could
// fire (dear: 1 after; you: 1 back, 3 after; override: 6 after), as
// rare as a chunk's last words are anchors.
//
// A modal with no window is given to the rules only when another
// window holds it, though a modal can disarm (modalAfterAI: an action
// fires only when the last modal, within 6 words before it, is armed).
// Such a modal is unarmed (no word of the 4 before it may be an AI
// name). Say the rules are given, before an action, G as the last modal
// and not the left-out modals after G. When G is armed and the action
// within 6 words after it, those modals lie in G's ahead and are given:
// there are none. So either the action is more than 6 after G or G is
// unarmed, and the rule does not fire; nor does it in the byte scan,
// whose last modal is G or one of those, unarmed. And when it fires in
// the byte scan its last modal is armed, so its window is open, and the
// action is in its ahead. A telling word cannot disarm (conceal is set
// by an armed one only), and "show"'s other role (leak) serves only the
// system rule, whose 6 back hold it.
//
// The words after a modal or a telling word count only when the words
// before it armed the rule: they are not part of the window but given
// only once the rules saw the anchor arm it (ahead, phraseState.judge).
// In prose most modals ("first", "needs") and telling words ("show")
// arm nothing, and their 6 and 16 words after were most of the words
// the rules were given (stop 56); then their 4 and 2 words before, and
// the windows of instruction words ("prompt", "rules"), "mode" and "now"
// with no rule to fire (stop 57).
func (ph *phraseState) window(b, j int, starts uint64, r uint32) (back, fwd int) {
	// An anchor has one anchor role (anchorSlots): a switch, not a test
	// a role.
	switch r & anchorRoles {
	case rModal:
		// aiNear first, in the chunk's blocks but its first (most
		// modals: one call, not two, aiBefore's loop after it only
		// when it cannot tell).
		if (b == 0 || ph.aiNear(b, j, starts)) && ph.aiBefore(b, j, starts) {
			return 4, 0
		}
	case rInstr:
		if ph.pairBefore(b, j, starts)&(rSystem|rNew) == 0 {
			break
		}
		switch rs := ph.rolesBefore(b, j, starts, 1, rSystem|rNew); {
		case rs&rSystem != 0:
			return maxBack, 0
		case rs&rNew != 0:
			return 1, 0
		}
	case rMode:
		if ph.pairBefore(b, j, starts)&rDeveloper != 0 && ph.rolesBefore(b, j, starts, 1, rDeveloper)&rDeveloper != 0 {
			return 1, 0
		}
	case rTell:
		if ph.pairsBefore(b, j, starts)&rNeg != 0 &&
			(ph.rolesBefore(b, j, starts, 1, rNeg)|ph.rolesBefore(b, j, starts, 2, rNeg))&rNeg != 0 {
			return 2, 0
		}
	case rNow:
		if ph.pairBefore(b, j, starts)&rAnything != 0 && ph.rolesBefore(b, j, starts, 1, rAnything)&rAnything != 0 {
			return 1, 0
		}
	case rOverride:
		if ph.overrideNear(b, j, starts) {
			return 0, 6
		}
	case rYou:
		if ph.areNear(b, j, starts) {
			return 1, 3
		}
	case rVocative:
		if rs, in := ph.rolesAfter(b, j, starts, 1, rAI); !in || rs&rAI != 0 {
			return 0, 1
		}
	}
	return -1, 0 // every anchor above with no rule to fire
}

// pairBefore is the roles of the vocabulary words of the pair
// (pairRoles) of the word just before the anchor at bit j of the chunk's
// block b, when it is in that block (most), else every role: a word
// whose pair has none of the roles window wants has none of them,
// told inline with no loop (rolesBefore finds it when this cannot).
func (ph *phraseState) pairBefore(b, j int, starts uint64) uint32 {
	m := starts & (1<<j - 1)
	if m == 0 {
		return 1<<32 - 1
	}
	return pairRoles[pairOf(ph.s, 64*(ph.b0+b)+63-bits.LeadingZeros64(m))]
}

// pairsBefore is pairBefore of the two words before the anchor, or'ed:
// every role unless both are in its block.
func (ph *phraseState) pairsBefore(b, j int, starts uint64) uint32 {
	m := starts & (1<<j - 1)
	if m&(m-1) == 0 {
		return 1<<32 - 1
	}
	s, at := ph.s, 64*(ph.b0+b)
	t := 63 - bits.LeadingZeros64(m)
	m &^= 1 << t
	return pairRoles[pairOf(s, at+t)] | pairRoles[pairOf(s, at+63-bits.LeadingZeros64(m))]
}

// pairsAfter is the roles of the pairs (pairRoles) of the two words
// after the anchor at bit j of the chunk's block b, or'ed, when both
// are in that block and it is not the text's last (so that each has a
// byte after its first), else every role.
func (ph *phraseState) pairsAfter(b, j int, starts uint64) uint32 {
	m := starts &^ (2<<j - 1)
	s, at := ph.s, 64*(ph.b0+b)
	if m&(m-1) == 0 || at+64 >= len(s) {
		return 1<<32 - 1
	}
	t := bits.TrailingZeros64(m)
	m &= m - 1
	return pairRoles[pairOf(s, at+t)] | pairRoles[pairOf(s, at+bits.TrailingZeros64(m))]
}

// overrideNear reports whether one of the 6 words after the override
// word at bit j of the chunk's block b (starts, that block's word
// starts) may be an instruction word or "above" by its first two
// letters (pairRoles), or one of them is not in the chunk or has no
// byte after its first (window). Most override words in prose ("override
// the default", "forget to") have none: their windows, 7 words given
// to the rules, were 25 of the 42 windows a MiB of the guides opened
// and 48 of 80 of the prose page's.
func (ph *phraseState) overrideNear(b, j int, starts uint64) bool {
	s, at := ph.s, 64*(ph.b0+b)
	m := starts &^ (2<<j - 1) // the word starts after the anchor's in b
	for range 6 {
		for m == 0 {
			if b++; b == len(ph.letter) {
				return true
			}
			at += 64
			m = ph.startsOf(b)
		}
		p := at + bits.TrailingZeros64(m)
		if p+1 >= len(s) || pairRoles[pairOf(s, p)]&(rInstr|rPrior) != 0 {
			return true
		}
		m &= m - 1
	}
	return false
}

// areNear reports whether "are" or "re" is the word just before "you",
// the anchor at bit j of block b, or 1 or 2 after it, or a word after it
// is not in the chunk (window).
func (ph *phraseState) areNear(b, j int, starts uint64) bool {
	if ph.pairBefore(b, j, starts)&rAre != 0 && ph.rolesBefore(b, j, starts, 1, rAre)&rAre != 0 {
		return true
	}
	if ph.pairsAfter(b, j, starts)&rAre == 0 {
		return false
	}
	for k := 1; k <= 2; k++ {
		if rs, in := ph.rolesAfter(b, j, starts, k, rAre); !in || rs&rAre != 0 {
			return true
		}
	}
	return false
}

// rolesBefore is the roles of the k-th word before the anchor at bit
// j of the chunk's block b (k from 1 to 4; starts, that block's word
// starts), 0 before the text's first word, or 0 when its first two
// letters are no word's of a role of want (pairRoles): as noted in
// looked, else looked up and noted. That word is in the chunk at or
// before block b, found by the blocks' word starts, or among the last
// before it (ring); its index is counted only when its pair passes
// (index).
func (ph *phraseState) rolesBefore(b, j int, starts uint64, k int, want uint32) uint32 {
	m := starts & (1<<j - 1) // the word starts before the anchor's in b
	i, p := -1, 0
	for {
		for m == 0 { // in an earlier block of the chunk, or before it
			if b == 0 {
				if i = ph.before - (k - 1); i < 1 {
					return 0
				}
				p = ph.ringAt(i)
				break
			}
			b--
			m = ph.startsOf(b)
		}
		if i > 0 {
			break
		}
		t := 63 - bits.LeadingZeros64(m)
		if k == 1 {
			p = 64*(ph.b0+b) + t
			break
		}
		m &^= 1 << t
		k--
	}
	// The pair first (no end needed; s[p+1] is before the anchor).
	if pairRoles[pairOf(ph.s, p)]&want == 0 {
		return 0
	}
	if i < 0 {
		i = ph.index(b, p-64*(ph.b0+b))
	}
	if l := &ph.looked[i&7]; l.idx == i {
		return l.roles
	}
	return ph.lookup(i, p)
}

// rolesAfter is the roles of the k-th word (k ≥ 1) after the anchor at
// bit j of the chunk's block b (starts, that block's word starts), as
// rolesBefore; in is false when that word is not in the chunk (not
// found: it may be any word).
func (ph *phraseState) rolesAfter(b, j int, starts uint64, k int, want uint32) (_ uint32, in bool) {
	m := starts &^ (2<<j - 1) // the word starts after the anchor's in b
	for ; ; k-- {
		for m == 0 {
			if b++; b == len(ph.letter) {
				return 0, false
			}
			m = ph.startsOf(b)
		}
		if k == 1 {
			t := bits.TrailingZeros64(m)
			p := 64*(ph.b0+b) + t
			if p+1 < len(ph.s) && pairRoles[pairOf(ph.s, p)]&want == 0 {
				return 0, true
			}
			i := ph.index(b, t)
			if l := &ph.looked[i&7]; l.idx == i {
				return l.roles, true
			}
			return ph.lookup(i, p), true
		}
		m &= m - 1
	}
}

// aiKeys is which word keys (wordKey, its top 12 bits) the AI names
// (rAI) have: a word whose key is not here is no AI name (and one whose
// pair has no rAI in pairRoles none either: aiPair). 512 bytes.
var aiKeys = func() (keys [1 << 6]uint64) {
	for w, r := range vocabulary {
		if r&rAI != 0 {
			k := wordKey(w, 0, len(w)) >> 4
			keys[k>>6] |= 1 << (k & 63)
		}
	}
	return
}()

// pairRoles[pairOf(w, 0)] is the roles of the vocabulary words w of
// that pair (two letters at least: none has one): a word whose pair has
// none of the roles wanted has none of them (rolesBefore, rolesAfter),
// found with no end and no lookup. 4 KiB.
var pairRoles = func() (t [1 << 10]uint32) {
	for w, r := range vocabulary {
		t[pairOf(w, 0)] |= r
	}
	return
}()

// pairOf is the two bytes of s from i by their low five bits.
func pairOf(s string, i int) uint16 { return uint16(s[i]&31)<<5 | uint16(s[i+1]&31) }

// mayBeAI reports whether the word s[i:j] may be an AI name by its key
// (aiKeys); its pair was tested (aiPair). AI names have two letters at
// least (wordKey's).
func mayBeAI(s string, i, j int) bool {
	if j-i < 2 {
		return false
	}
	k := wordKey(s, i, j) >> 4
	return aiKeys[k>>6]&(1<<(k&63)) != 0
}

// anchorVocab is the anchors of the vocabulary (its words with a role
// of anchorRoles) and their roles, each alone in its slot of 128 by its
// first eight letters and its length (anchorSlot, anchorMul), so that
// a candidate of the filter is looked up by one probe with no loop, in
// a table of 3 KiB (the vocabulary's is 32 KiB, the first-level cache's
// size): most candidates are no anchor ("node", "files", "directory").
type anchorEntry struct {
	lo, hi uint64 // packWord's
	roles  uint32
	n      int32
}

const anchorBits = 7

// anchorSlot is the slot of the word of length n whose packWord lo is
// lo, by the multiplier mul.
func anchorSlot(lo uint64, n int, mul uint64) uint64 {
	return (lo + uint64(n)) * mul >> (64 - anchorBits)
}

// anchorMul is the first multiplier from anchorMulSeed (then odd ones
// of a linear congruential sequence) that puts every anchor in a slot
// of its own: the seed itself for the vocabulary as it is
// (TestAnchorLookupIsLookup says when it is not; the search then costs
// the program's start some thousands of tries).
var anchorVocab, anchorMul = func() (t [1 << anchorBits]anchorEntry, mul uint64) {
	var anchors []anchorEntry
	for w, r := range vocabulary {
		if r&anchorRoles != 0 {
			if len(w) < minAnchor || len(w) > maxWord {
				panic("untrusted: an anchor of " + w + "'s length")
			}
			lo, hi := packWord(w, 0, len(w))
			anchors = append(anchors, anchorEntry{lo: lo, hi: hi, roles: r, n: int32(len(w))})
		}
	}
	return placeAnchors(anchors, anchorMulSeed)
}()

// placeAnchors is the anchors' table and the first multiplier from seed
// (then odd ones of a linear congruential sequence) that puts each anchor
// in a slot of its own.
func placeAnchors(anchors []anchorEntry, seed uint64) (t [1 << anchorBits]anchorEntry, mul uint64) {
	// Two anchors alike in their first eight letters and length share
	// every slot: no multiplier would part them, and the search would
	// never end (TestPlaceAnchorsRefusesTwins).
	seen := map[[2]uint64]bool{}
	for _, a := range anchors {
		k := [2]uint64{a.lo, uint64(a.n)}
		if seen[k] {
			panic("untrusted: two anchors alike in their first eight letters and length")
		}
		seen[k] = true
	}
	for mul = seed; ; mul = (mul*0x5851F42D4C957F2D + 0x14057B7EF767814F) | 1 {
		t = [1 << anchorBits]anchorEntry{}
		placed := true
		for _, a := range anchors {
			e := &t[anchorSlot(a.lo, int(a.n), mul)]
			if e.n != 0 {
				placed = false
				break
			}
			*e = a
		}
		if placed {
			return t, mul
		}
	}
}

const (
	anchorMulSeed = 0x598aa597e02f6a81
	minAnchor     = 3 // the shortest anchor ("you", "now", "hey")
)

// anchorLookup is lookup for the anchor filter's candidates: the roles
// of the word s[start:end] when it is an anchor, else 0. It reads eight
// bytes from start (one load; a word within the text's last seven bytes
// is looked up in the vocabulary).
func anchorLookup(s string, start, end int) uint32 {
	if start+8 > len(s) {
		if r := lookup(s, start, end); r&anchorRoles != 0 {
			return r
		}
		return 0
	}
	return anchorIn(s, start, end-start)
}

// anchorIn is anchorLookup of the word of n letters at start, which has
// eight bytes of the text from it.
func anchorIn(s string, start, n int) uint32 {
	if e := anchorFirst(load8(s, start), n); e != nil {
		return e.rolesAt(s, start+n)
	}
	return 0
}

// anchorFirst is the anchor of n letters whose first eight (or fewer)
// are the first of w, the eight bytes from a word's start, in either
// case, or nil when none is. It is small enough to be inlined in
// phraseState.chunk's loop over the candidates, which then keeps its
// values in registers over those that are no anchor (most): the call
// and the spills around it were about half a candidate's instructions
// (stop 58).
func anchorFirst(w uint64, n int) *anchorEntry {
	if uint(n-minAnchor) > maxWord-minAnchor {
		return nil
	}
	lo := (w | fold8) & lowBytes[n&15]
	e := &anchorVocab[anchorSlot(lo, n, anchorMul)]
	if e.lo != lo || int(e.n) != n {
		return nil
	}
	return e
}

// rolesAt is the anchor's roles when it is the word that ends at end in
// s, whose first eight letters are its own (anchorFirst), else 0.
func (e *anchorEntry) rolesAt(s string, end int) uint32 {
	if e.n > 8 && load8(s, end-8)|fold8 != e.hi {
		return 0
	}
	return e.roles
}

// fold8 folds eight letters to lower case (and sets bit 5 of any byte),
// and lowBytes[n] keeps the first n bytes of a word (all eight from 8).
const fold8 = 0x2020202020202020

var lowBytes = func() (t [16]uint64) {
	for n := range t {
		t[n] = ^uint64(0) >> (64 - 8*min(n, 8))
	}
	return
}()

// maxBack is the most words any window reaches back.
const maxBack = 6

// ahead is the words after word idx, just given to the rules (w), that
// the rules must see too: 6 after a modal with an AI name within 4
// words before it, 16 after a telling word with a negation within 2
// before it (window), else 0.
func ahead(w *words, idx int) int {
	switch idx {
	case w.conceal:
		return 16
	case w.modalAI:
		return 6
	}
	return 0
}

// The anchor filter looks at five bytes from a word start, the first,
// second, third, fifth and sixth (filterPos): each byte maps, by a table
// per position, to the set of eight buckets of anchor words it fits
// there; a word may be an anchor when a bucket fits all five. The
// buckets whose words are all of one length n, 4 or 5, also require the
// byte n places on, after the word, to be no letter. Every anchor passes
// (TestAnchorFilterPassesEveryAnchor); other words pass rarely. A byte's
// entry is its slot's (letterSlot: two letters to most slots, any other
// byte slot 0): with AVX2 one lookup is a 16-entry shuffle (VPSHUFB) by
// the slot; with AVX-512 VBMI one byte permute by filterIndex (a
// letter of either case by its place in the alphabet, any other byte by
// one of a few entries), of a 64-entry table with each slot's entry at
// its indexes (anchorTable; the assembly looks the same entries up by
// the byte's low seven bits in a table of 128, anchorRaw).
//
// Which positions, which anchors share a bucket (anchorBuckets) and
// which letters a slot (letterSlot) were chosen together by a search
// (stop 58) for the fewest word starts that pass, over this
// repository's docs but architecture.md, its BENCHMARKS.md and README,
// the Go spec and the fixture's page, against the six bytes from the
// word start and buckets by length before. On texts it did not see, a
// MiB each: the prose page 3,600 candidates against 4,510 (1,928 of them
// anchors), architecture.md 3,352 against 4,423, npm READMEs 6,198
// against 7,847, and the fixture's page none, as before; each position
// fewer is three vector instructions fewer per 32 bytes. The fourth
// byte is the one left out: no five positions without the sixth byte
// keep the fixture's page at none ("guide" is the start of
// "guidelines"), and of those with it, leaving out the fourth let
// through the fewest. Four positions let through 4,115 of the prose
// page but 10,485 of the fixture's. Without "anything" (stop 62: no
// anchor, anchorRoles) the prose page has 3,484 candidates, 1,853 of
// them anchors; a filter over all six bytes would pass 3,355.
const filterLen = 5

// filterPos is the places from a word start of the bytes the anchor
// filter looks at (masks_avx2_amd64.s's ANCHORS and avx2Masks' anchors
// shift by the same, written out).
var filterPos = [filterLen]int{0, 1, 2, 4, 5}

// anchorBuckets is the anchors of each bucket of the filter (the
// search's: see above).
var anchorBuckets = [8][]string{
	{"dear", "hey", "need", "needs"},
	{"alert", "always", "immediately", "now", "you"},
	{"ignore", "ignoring", "mention", "mentioning", "tell", "telling"},
	{"mode", "must", "note", "show"},
	{"guardrails", "inform", "informing", "instructed", "instruction", "instructions", "programming", "prompt", "prompts", "should"},
	{"directions", "directives", "first", "shall"},
	{"attention", "forget", "guidelines", "neglect", "notify", "notifying", "required"},
	{"bypass", "disregard", "disregarding", "override", "please", "rules"},
}

// filterIndex is the anchor tables' index of a byte c: (c|0x20)-0x60,
// at most 63. A letter of either case is 1 to 26; any other byte is 0,
// 27 to 31 or 63 (three vector instructions: or, subtract, minimum).
func filterIndex(c byte) byte { return min((c|0x20)-0x60, 63) }

// letterSlot[i] is the slot, 1 to 15, of the letter of filterIndex i
// (1 to 26: a to z) in the anchor tables; every other byte has slot 0.
// The tables are of 16 slots, two letters to most, so that a lookup is
// one 16-entry shuffle (VPSHUFB) with AVX2 (masks_avx2.go): a table's
// entry for a slot is the buckets either letter fits there. Chosen by
// the search above, with the buckets.
var letterSlot = [27]uint8{0, // not a letter
	5, 8, 7, 9, 6, 14, 7, 14, 10, 15, 10, 12, 13, // a to m
	4, 11, 8, 6, 3, 2, 15, 1, 1, 1, 13, 10, 12} // n to z

// anchorSlotOf is the slot of the byte of filterIndex i.
func anchorSlotOf(i byte) byte {
	if i >= 1 && i <= 26 {
		return letterSlot[i]
	}
	return 0
}

// anchorSlots[k][slot] is the buckets a byte of that slot fits at
// position k (filterPos[k] bytes from the word start).
var anchorSlots = func() (t [filterLen][16]uint8) {
	placed := map[string]bool{}
	for b, ws := range anchorBuckets {
		n := len(ws[0]) // the bucket's one length, or -1
		for _, w := range ws {
			if len(w) != n {
				n = -1
			}
		}
		for _, w := range ws {
			r := vocabulary[w]
			if r&anchorRoles == 0 || placed[w] {
				panic("untrusted: " + w + " in anchorBuckets is no anchor or twice")
			}
			placed[w] = true
			for k, p := range filterPos {
				for c := 0; c < 256; c++ {
					// A letter of the word; after a word of the bucket's
					// one length no letter; past a word any byte.
					if p < len(w) && c == int(w[p]) || p == n && class[c] != clsLetter || p >= len(w) && p != n {
						t[k][anchorSlotOf(filterIndex(byte(c)))] |= 1 << b
					}
				}
			}
		}
	}
	for w, r := range vocabulary {
		if r&anchorRoles == 0 {
			continue
		}
		if bits.OnesCount32(r&anchorRoles) > 1 {
			panic("untrusted: a word of two anchor roles") // window's switch
		}
		if !placed[w] {
			panic("untrusted: the anchor " + w + " in no bucket (anchorBuckets)")
		}
	}
	return t
}()

// anchorTable[k][filterIndex(c)] is anchorSlots[k] of c's slot.
var anchorTable = func() (t [filterLen][64]uint8) {
	for k := range t {
		for i := range t[k] {
			t[k][i] = anchorSlots[k][anchorSlotOf(byte(i))]
		}
	}
	return t
}()

// anchorAt reports whether the bytes of s from i at filterPos (zero
// past its end) pass the anchor filter: the scalar form of the vector
// filter.
func anchorAt(s string, i int) bool {
	acc := uint8(0xff)
	for k, p := range filterPos {
		c := byte(0)
		if i+p < len(s) {
			c = s[i+p]
		}
		acc &= anchorSlots[k][anchorSlotOf(filterIndex(c))]
	}
	return acc != 0
}
