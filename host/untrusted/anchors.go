package untrusted

// Every phrase rule needs, a few words before the word that completes
// it, a word of one of a few roles: its anchor. Ordinary prose has few
// anchors, so the sparse scan (sparse.go) runs the rules only over the
// words near one (window), found by a filter over the bytes at each
// word start (anchorAt; vectorMasks), and steps over the rest of the text by
// counting words.

// anchorRoles are the anchors' roles, one at least for each rule:
// override (ignore ... instructions), instruction words (new
// instructions, system prompt), anything (anything now), mode
// (developer mode), vocatives (dear AI), you (you are an AI, you are
// now), modals (AI agents must call), telling words (do not tell the
// user) and now (you are now X).
const anchorRoles = rOverride | rInstr | rAnything | rMode | rVocative | rYou | rModal | rTell | rNow

// window is the words, before and after an anchor with roles r, that
// the rules it may take part in look at (words.word): for each rule the
// anchor, the word completing it and every word its checks read.
//
//	override ... instr/prior (within 6)       anchor, then 6 after
//	new|system, leak (6 before) ... instr     6 before the instruction word
//	anything now, developer mode, dear AI     the next word, the word before
//	are (just before you) you are ... AI      1 before, 3 after
//	AI (4 before) modal ... action (6 after)  4 before, 6 after
//	neg (2 before) tell ... user (16 after)   2 before, 16 after
//	you are now X                             2 before "now" (X is read ahead)
func window(r uint32) (back, fwd int) {
	atLeast := func(a *int, b int) {
		if b > *a {
			*a = b
		}
	}
	if r&rOverride != 0 {
		atLeast(&fwd, 6)
	}
	if r&rInstr != 0 {
		atLeast(&back, 6)
	}
	if r&(rAnything|rVocative) != 0 {
		atLeast(&fwd, 1)
	}
	if r&rMode != 0 {
		atLeast(&back, 1)
	}
	if r&rYou != 0 {
		atLeast(&back, 1)
		atLeast(&fwd, 3)
	}
	if r&rModal != 0 {
		atLeast(&back, 4)
		atLeast(&fwd, 6)
	}
	if r&rTell != 0 {
		atLeast(&back, 2)
		atLeast(&fwd, 16)
	}
	if r&rNow != 0 {
		atLeast(&back, 2)
	}
	return back, fwd
}

// maxBack is the most words any window reaches back.
const maxBack = 6

// The anchor filter looks at the six bytes from a word start: each byte
// maps, by a 64-entry table per position, to the set of eight buckets of
// anchor words it fits there; a word may be an anchor when a bucket fits
// all six. The buckets of the three-, four- and five-letter anchors also
// require the byte after the word to be no letter. Every anchor passes;
// other words pass rarely ("that" failed once "show" had a bucket of its
// own). A byte indexes the tables by filterIndex (a letter of either
// case by its place in the alphabet, any other byte by one of a few
// entries), so one lookup is one vector permute (VPERMB).
const filterLen = 6

// anchorBucket is the bucket of an anchor word, and whether the bucket
// holds words of that length only (the byte after them is checked).
func anchorBucket(w string) (b int, exact bool) {
	switch n := len(w); {
	case n == 3 && w == "now":
		return 1, true
	case n == 3:
		return 0, true
	case n == 4 && w == "show":
		return 3, true
	case n == 4:
		return 2, true
	case n == 5:
		return 4, true
	case n == 6:
		return 5, false
	case n <= 9:
		return 6, false
	}
	return 7, false
}

// filterIndex is the anchor tables' index of a byte c: (c|0x20)-0x60,
// at most 63. A letter of either case is 1 to 26; any other byte is 0,
// 27 to 31 or 63 (three vector instructions: or, subtract, minimum).
func filterIndex(c byte) byte { return min((c|0x20)-0x60, 63) }

// anchorTable[k][filterIndex(c)] is the buckets a byte c fits at
// position k.
var anchorTable = func() (t [filterLen][64]uint8) {
	lens := [8]int{} // the length of an exact bucket's words
	for w, r := range vocabulary {
		if r&anchorRoles == 0 {
			continue
		}
		b, exact := anchorBucket(w)
		if exact {
			if lens[b] != 0 && lens[b] != len(w) {
				panic("untrusted: anchor bucket of two lengths")
			}
			lens[b] = len(w)
		}
		for k := 0; k < filterLen && k < len(w); k++ {
			t[k][filterIndex(w[k])] |= 1 << b
		}
	}
	for b, n := range lens {
		for k := n; n != 0 && k < filterLen; k++ {
			for c := 0; c < 256; c++ {
				// The byte after the word is no letter; any byte after.
				if k > n || class[c] != clsLetter {
					t[k][filterIndex(byte(c))] |= 1 << b
				}
			}
		}
	}
	return t
}()

// anchorAt reports whether the six bytes of s from i (zero past its end)
// pass the anchor filter: the scalar form of the vector filter.
func anchorAt(s string, i int) bool {
	acc := uint8(0xff)
	for k := 0; k < filterLen; k++ {
		c := byte(0)
		if i+k < len(s) {
			c = s[i+k]
		}
		acc &= anchorTable[k][filterIndex(c)]
	}
	return acc != 0
}
