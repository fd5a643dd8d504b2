package untrusted

// blockMasks are the scan's bit masks of the 64 bytes of s from i (a
// bit per byte, bit j for s[i+j]): letters, special bytes (specialAt)
// and bytes where the anchor filter passes (anchorAt). The vector code
// computes the same (masks_simd.go); this is its form for the text's end
// and for builds without it.
func blockMasks(s string, i int) (letter, special, anchor uint64) {
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
	return letter, special, anchor
}

// specialAt reports whether s[i] is a byte the scan must judge: the
// lead byte of an invisible character (clsUnicode), or a byte that may
// open markup (clsMarkup) followed by a byte that some markup of that
// lead has next (markupAt finds nothing at the others). Both are looked
// up in tables as the vector code does: the byte's class by its low
// seven bits (byteClass; a lead byte is one of 0x80 or more, the others
// are ASCII), the next byte's fit by its low six bits (markupNext, so a
// few bytes more pass than must).
func specialAt(s string, i int) bool {
	c, next := s[i], byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	k := byteClass[c&0x7f]
	return k&markupNext[next&63] != 0 && (c >= 0x80) == (k >= classLead)
}

// The bits of byteClass: a markup byte's own (markupBit), a letter's, a
// lead byte's (the bytes 0xE2, 0xEF, 0xF3 share their low seven bits
// with the letters b, o, s).
const (
	classLetter = 0x40
	classLead   = 0x80
)

var markupBit = map[byte]uint8{'<': 1, '[': 2, '"': 4, '\n': 8}

// byteClass[c&0x7f] is the class bits of a byte c; markupNext[c&63] the
// markup bytes c may follow in some markup, and classLead.
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
