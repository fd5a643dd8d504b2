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
// seven bits (specialClass; a lead byte is one of 0x80 or more, the
// markup bytes are ASCII), the next byte's fit by its low six bits
// (specialNext, so a few bytes more pass than must).
func specialAt(s string, i int) bool {
	c, next := s[i], byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	k := specialClass[c&0x7f]
	return k&specialNext[next&63] != 0 && (c >= 0x80) == (k == specialLead)
}

// specialLead is the class of the invisible characters' lead bytes; a
// markup byte's class is a bit of its own (specialBit).
const specialLead = 0x80

var specialBit = map[byte]uint8{'<': 1, '[': 2, '"': 4, '\n': 8}

// specialClass[c&0x7f] is the class of a byte c; specialNext[c&63]
// the markup bytes c may follow in some markup, and specialLead.
var specialClass, specialNext = func() (cls [128]uint8, next [64]uint8) {
	for c, bit := range specialBit {
		cls[c] = bit
	}
	for _, c := range []byte{0xE2, 0xEF, 0xF3} {
		cls[c&0x7f] = specialLead
	}
	for i := range next {
		next[i] = specialLead
	}
	fits := func(lead, c byte) {
		next[c&63] |= specialBit[lead]
		if c >= 'a' && c <= 'z' {
			next[(c-0x20)&63] |= specialBit[lead] // markupAt folds the next byte
		}
	}
	for lead := range specialBit {
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
