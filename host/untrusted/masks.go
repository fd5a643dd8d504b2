package untrusted

// blockMasks are the scan's bit masks of the 64 bytes of s from i (a
// bit per byte, bit j for s[i+j]): letters, special bytes (specialAt)
// and the word starts where the anchor filter passes (anchorAt), top
// being the letter bit before the block (chunkSum.top: the byte before's
// class, but 0 when specials stepped over it). The vector code computes
// the same (masks_simd.go); this is its form for the text's end and for
// builds without it.
//
// The anchor bits are at word starts only, as the letters are before
// specials step over any: the kernels have the starts for their sums,
// and phraseState.chunk wants no others (it took them out itself until
// stop 58). Where specials take letters out of a block, its anchors
// and the next block's are made again (anchorsAgain).
func blockMasks(s string, i int, top uint64) (letter, special, anchor uint64) {
	for j := 0; j < 64 && i+j < len(s); j++ {
		if class[s[i+j]] == clsLetter {
			letter |= 1 << j
			if anchorAt(s, i+j) {
				anchor |= 1 << j
			}
		} else if specialAt(s, i+j) {
			special |= 1 << j
		}
	}
	return letter, special, anchor & (letter &^ (letter<<1 | top))
}

// nonZero is 1 when x is not 0, else 0: a block's bit in
// chunkSum.anchored, set without a branch (the kernels' blocks have
// an anchor bit at random, about one in five on prose).
func nonZero(x uint64) uint64 {
	return (x | -x) >> 63
}

// specialAt reports whether s[i] is a byte the scan must judge: the
// lead byte of an invisible character (clsUnicode), or a byte that may
// open markup (clsMarkup) whose four bytes from it may be the first
// four of some markup (mayOpenMarkupQuick, by the first, second and
// fourth; markupAt finds nothing at the others), and a '\n' or '\r'
// only before a '\n' (every markup they open is "\n\n..." or
// "\r\n\r\n...": the hash takes bytes by their low five bits, so
// "\nJxs" passes it as "\n\nas"). On
// Markdown most markup bytes are paragraph breaks, quotes and brackets
// that open none: with the two-byte test they were (the byte after '\n'
// fitting "\n\nHuman:", '[' any letter), nearly every block had a
// special bit, judged one by one, and nearly every chunk lost the
// kernel's sums (stop 57, s57-f). The line ends of prose are most of its
// markup bytes: the AVX2 kernel drops a '\n' or '\r' before a byte
// other than '\n' by a compare of the bytes one on with '\n', before
// its one-by-one hash (stop 58).
// The class is looked up as the vector code does, by the byte's low
// seven bits (byteClass; a lead byte is one of 0x80 or more, the markup
// bytes are ASCII).
func specialAt(s string, i int) bool {
	c := s[i]
	k := byteClass[c&0x7f]
	if c >= 0x80 {
		return k >= classLead
	}
	return k&markupBits != 0 && mayOpenMarkupQuick(s, i) && (c >= 0x20 || s[i+1] == '\n')
}

// The bits of byteClass: a markup byte's own (markupBit), a letter's, a
// lead byte's (the bytes 0xE2, 0xEF, 0xF3 share their low seven bits
// with the letters b, o, s).
const (
	markupBits  = 0x1F // markupBit's
	classLetter = 0x40
	classLead   = 0x80
)

var markupBit = map[byte]uint8{'<': 1, '[': 2, '"': 4, '\n': 8, '\r': 16}

// byteClass[c&0x7f] is the class bits of a byte c; markupNext[c&63] the
// markup bytes c may follow in some markup, and classLead: the VBMI
// kernel's two-byte test (vbmiMasks), which lets through more markup
// bytes than specialAt.
var byteClass, markupNext = func() (cls [128]uint8, next [64]uint8) {
	for c, bit := range markupBit {
		cls[c] = bit
	}
	for c := 0; c < 128; c++ {
		if class[c] == clsLetter {
			cls[c] |= classLetter
		}
	}
	for _, c := range []byte{0xE2, 0xEF, 0xF3} {
		cls[c&0x7f] |= classLead
	}
	for i := range next {
		next[i] = classLead
	}
	fits := func(lead, c byte) {
		next[c&63] |= markupBit[lead]
		if c >= 'a' && c <= 'z' {
			next[(c-0x20)&63] |= markupBit[lead] // markupAt folds the next byte
		}
	}
	for lead := range markupBit {
		if t := markupByLead[lead]; t != nil {
			for c, ms := range t {
				if len(ms) > 0 {
					fits(lead, byte(c))
				}
			}
		}
	}
	fits('<', '|') // the special tokens <|...|> (specialToken)
	return cls, next
}()

// gateThird[c&127] is the class bits (byteClass) a byte keeps when c
// is the byte two after it, so that the VBMI kernels keep as special
// only the markup and lead bytes where something may be found:
//
//   - A line end's markup bits where c's low seven bits are a turn
//     marker's third byte from its last gate (turnThirds, a letter in
//     either case): at a gate whose third byte is none of those, turnAt
//     finds nothing (a '\n' or '\r' there makes a later gate the last,
//     any other byte is no role's first). Without it every paragraph
//     break was a special byte, 2,337 a MiB of the user guides, and
//     judging them was a fifth of the screener's time in the call (stop
//     61). By the low six bits (one table of 64, stop 61) it kept 1,013
//     of them: "\n\n```" passed as "\n\n " does, "\n\nIn" as
//     "\n\n\t", "\n\n(" as "\n\nh"; by seven (a permute of two
//     tables, as the class's) 397 (stop 62).
//   - A lead byte's (classLead) where c's low seven bits are those of
//     the third byte of an invisible character (invisibleAt: U+200B–200F
//     "\xe2\x80\x8b"..., U+FEFF "\xef\xbb\xbf", a tag "\xf3\xa0\x80"...).
//     A lead byte that starts none judges to nothing: it steps over no
//     letter (the bytes of a whole sequence are 0x80 up, and a
//     malformed one steps over none) and no special byte (no lead or
//     markup byte is a continuation byte), and a zero-width run ends at
//     any byte between two anyway. Dashes and quotes ("\xe2\x80\x94")
//     were 157 special bytes a MiB of the guides (stop 62).
//   - The markup bits of '<', '[' and '"' where c may be the third
//     byte of a spelling it starts, or for '<' of a special token: a
//     quote before "the" or a Markdown link's "[a" opens nothing (311
//     and 51 special bytes a MiB of the guides, 987 in all there, now
//     691; stop 62).
//
// A byte of 0x80 up shares its entry with its low seven bits' ASCII
// byte: kept at most where that one is. The letters' bits are kept
// whatever c is.
var gateThird = func() (t [128]uint8) {
	for c := range t {
		t[c] = ^uint8(markupBits | classLead)
	}
	// The other markup bytes' own bits where c may be the third byte of
	// a spelling they start (markupByLead, a letter in either case: the
	// first three bytes are compared as they are, hasFoldPrefix) or, for
	// '<', of a special token (specialToken: after "<|" a letter, digit,
	// '_', '-' or space, or an invisible character's lead, each of whose
	// low seven bits are a letter's).
	third := func(lead, c byte) {
		t[c&127] |= markupBit[lead]
		if c >= 'a' && c <= 'z' {
			t[c-0x20] |= markupBit[lead]
		}
	}
	for m := range markups {
		if m.text[0] != '\n' && m.text[0] != '\r' {
			third(m.text[0], m.text[2])
		}
	}
	for c := 0; c < 128; c++ {
		if class[c] == clsLetter || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ' ' {
			third('<', byte(c))
		}
	}
	for _, c := range invisibleLeads {
		third('<', c)
	}
	for _, c := range turnThirds {
		t[c] |= lineEnds
		if c >= 'a' && c <= 'z' {
			t[c-0x20] |= lineEnds
		}
	}
	for _, lead := range []byte{0xE2, 0xEF, 0xF3} {
		for b1 := 0x80; b1 < 0xC0; b1++ {
			for b2 := 0x80; b2 < 0xC0; b2++ {
				if _, kind := invisibleAt(string([]byte{lead, byte(b1), byte(b2), 'x'}), 0); kind != invNone {
					t[b2&127] |= classLead
				}
			}
		}
	}
	return t
}()

// lineEnds is the markup bits of '\n' and '\r' (byteClass).
const lineEnds = 8 | 16
