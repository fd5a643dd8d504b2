package untrusted

import (
	"sort"
	"strings"
)

// Signal kinds the screening reports.
const (
	KindOverride       = "override_instructions" // "ignore the previous instructions"
	KindRoleHijack     = "role_hijack"           // "you are now", "new instructions:", "developer mode"
	KindAddressedToAI  = "addressed_to_ai"       // "AI assistants must ..."
	KindConcealment    = "concealment"           // "do not tell the user"
	KindRoleMarkup     = "role_markup"           // <|im_start|>, [INST], <<SYS>>, "\n\nHuman:"
	KindToolCallMarkup = "tool_call_markup"      // <tool_call>, <function_calls>, "tool_calls":
	KindDirectiveTag   = "directive_tag"         // <IMPORTANT>, <instructions>
	KindUnicodeTags    = "unicode_tags"          // U+E0000–U+E007F
	KindBidiControls   = "bidi_controls"         // U+202A–202E, U+2066–2069
	KindZeroWidthRun   = "zero_width_run"        // two or more zero-width characters in a row
	KindBoundary       = "boundary_in_content"   // the envelope's boundary inside the content
)

// Signal is one kind of injection signal found: how often, and the byte
// offset of its first occurrence.
type Signal struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
	First int    `json:"first"`
}

// Verdict is the screening of one text. Flagged is true when any signal
// was found; the text itself is never changed.
type Verdict struct {
	Flagged bool     `json:"flagged"`
	Signals []Signal `json:"signals,omitempty"`
}

// Kinds lists the verdict's signal kinds, in order.
func (v Verdict) Kinds() []string {
	out := make([]string, len(v.Signals))
	for i, s := range v.Signals {
		out[i] = s.Kind
	}
	return out
}

// found counts signals while the scan runs.
type found struct {
	kinds [16]string
	count [16]int
	first [16]int
	n     int
}

func (f *found) add(kind string, at int) {
	for i := 0; i < f.n; i++ {
		if f.kinds[i] == kind {
			f.count[i]++
			return
		}
	}
	if f.n < len(f.kinds) {
		f.kinds[f.n], f.count[f.n], f.first[f.n] = kind, 1, at
		f.n++
	}
}

func (f *found) verdict() Verdict {
	if f.n == 0 {
		return Verdict{}
	}
	v := Verdict{Flagged: true, Signals: make([]Signal, f.n)}
	for i := 0; i < f.n; i++ {
		v.Signals[i] = Signal{Kind: f.kinds[i], Count: f.count[i], First: f.first[i]}
	}
	sort.Slice(v.Signals, func(i, j int) bool { return v.Signals[i].Kind < v.Signals[j].Kind })
	return v
}

// byte classes of the scan.
const (
	clsOther = iota
	clsLetter
	clsMarkup  // '<', '[', '"', '\n', '\r', '#', 't': may open markup
	clsUnicode // lead bytes of the invisible characters we look for
)

var class = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-32] = clsLetter, clsLetter
	}
	for _, c := range []byte{'<', '[', '"', '\n', '\r'} {
		t[c] = clsMarkup
	}
	for _, c := range []byte{0xE2, 0xEF, 0xF3} {
		t[c] = clsUnicode
	}
	return t
}()

// Screen looks for injection signals in s in one pass: phrases that
// address the model or try to replace its instructions, the providers'
// role and tool-call markup, and invisible Unicode (tag characters,
// bidirectional controls, runs of zero-width characters).
//
// The pass only splits words and notes, without a branch, those that may
// be vocabulary words (about one in five of ordinary English); the
// phrase rules run over that list a batch at a time (wordBatch). A branch
// per word on the filter was taken at random and mispredicted often.
//
// With vector instructions (masks_simd.go) a text of sparseMin bytes or
// more is screened by bit masks instead (screenSparse), with the same
// findings.
func Screen(s string) Verdict {
	if haveVector && len(s) >= sparseMin {
		v, _ := screenSparse(s, "")
		return v
	}
	return ScreenScan(s)
}

// ScreenFor is Screen of s and where boundary first occurs in s (-1:
// nowhere; strings.Index), for EnvelopeAt: by masks both are found in
// one pass over the text, else the boundary by a search of its own.
func ScreenFor(s, boundary string) (Verdict, int) {
	if haveVector && len(s) >= sparseMin && boundary != "" {
		return screenSparse(s, boundary)
	}
	return Screen(s), strings.Index(s, boundary)
}

// sparseMin is the shortest text screened by masks: below it the byte
// scan is about as fast.
const sparseMin = 256

// ScreenScan is Screen as one pass over the bytes: what Screen is
// without vector code, exported so that the host's benchmarks can
// compare the two in one run.
func ScreenScan(s string) Verdict {
	var f found
	var b wordBatch
	b.w = newWords()
	n := len(s)
	var zw zeroWidth
	idx := 0
	for i := 0; i < n; {
		c := s[i]
		switch class[c] {
		case clsLetter:
			j := i + 1
			for j < n && class[s[j]] == clsLetter {
				j++
			}
			idx++
			// Noted always, kept (m advanced) only when it may be a
			// vocabulary word (vocabFirst for one letter, vocabFilter's
			// key, wordKey, for more, at most maxWord letters): no
			// branch on the filter.
			l, i2 := j-i, i+1
			if l == 1 {
				i2 = i
			}
			k := uint32(c|0x20)<<24 | uint32(s[i2]|0x20)<<16 | uint32(s[j-1]|0x20)<<8 | uint32(l)
			g := uint16((k * 0x9E3779B1) >> 16)
			hit := int(vocabFilter[g>>6]>>(g&63)) & 1
			if l == 1 {
				hit = vocabFirstBit[c]
			}
			if l > maxWord {
				hit = 0
			}
			b.cand[b.m&(len(b.cand)-1)] = candidate{start: i, end: j, idx: idx}
			b.m += hit
			if b.m == len(b.cand) {
				b.run(&f, s)
			}
			// The bytes after a word are mostly spaces and
			// punctuation (clsOther): stepped over here.
			for j < n && class[s[j]] == clsOther {
				j++
			}
			zw.run = 0
			i = j
			continue
		case clsOther:
			zw.run = 0
		case clsMarkup:
			zw.run = 0
			if mayOpenMarkup(s, i) {
				markupAt(&f, s, i)
			}
		case clsUnicode:
			i += zw.at(&f, s, i)
			continue
		}
		i++
	}
	b.run(&f, s)
	return f.verdict()
}

// zeroWidth counts zero-width characters in a row.
type zeroWidth struct{ run, start int }

// at judges the invisible character that may start at s[i] (a lead byte
// E2, EF or F3) and returns how many bytes to step over. It is out of
// Screen's loop: ordinary text seldom has these bytes.
func (zw *zeroWidth) at(f *found, s string, i int) int {
	size, kind := invisibleAt(s, i)
	if kind == invZeroWidth {
		if zw.run == 0 {
			zw.start = i
		}
		zw.run++
		if zw.run == 2 {
			f.add(KindZeroWidthRun, zw.start)
		}
		return size
	}
	zw.run = 0
	switch kind {
	case invTag:
		f.add(KindUnicodeTags, i)
	case invBidi:
		f.add(KindBidiControls, i)
	}
	return size
}

// candidate is a word s[start:end], the idx-th of the text, that may be a
// vocabulary word.
type candidate struct{ start, end, idx int }

// wordBatch holds the candidates noted and not yet given to the rules.
type wordBatch struct {
	w    words
	cand [256]candidate
	m    int
}

// run gives the noted candidates to the phrase rules, in order. The
// rules look only at vocabulary words and at their word indexes, so
// running them late changes nothing; a word that is no vocabulary word
// (a filter false positive) leaves them as they were.
func (b *wordBatch) run(f *found, s string) {
	for _, c := range b.cand[:b.m] {
		b.w.idx = c.idx
		b.w.word(f, s, c.start, c.end)
	}
	b.m = 0
}

// vocabFirstBit is vocabFirst of the letter in either case, as 0 or 1.
var vocabFirstBit = func() (t [256]int) {
	for c := range t {
		if vocabFirst[c|0x20] {
			t[c] = 1
		}
	}
	return t
}()

// invisible character kinds.
const (
	invNone = iota
	invZeroWidth
	invBidi
	invTag
)

// invisibleAt classifies the UTF-8 sequence at s[i] (a lead byte E2, EF
// or F3) and returns how many bytes to step over.
func invisibleAt(s string, i int) (size int, kind int) {
	if i+2 >= len(s) {
		return 1, invNone
	}
	b1, b2 := s[i+1], s[i+2]
	switch s[i] {
	case 0xE2:
		switch {
		case b1 == 0x80 && b2 >= 0x8B && b2 <= 0x8F: // U+200B–200F
			return 3, invZeroWidth
		case b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE: // U+202A–202E
			return 3, invBidi
		case b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9: // U+2066–2069
			return 3, invBidi
		case b1 == 0x81 && b2 >= 0xA0 && b2 <= 0xA4: // U+2060–2064
			return 3, invZeroWidth
		}
	case 0xEF:
		if b1 == 0xBB && b2 == 0xBF { // U+FEFF
			return 3, invZeroWidth
		}
	case 0xF3:
		if b1 == 0xA0 && (b2 == 0x80 || b2 == 0x81) && i+3 < len(s) { // U+E0000–E007F
			return 4, invTag
		}
		return 1, invNone
	}
	// Another character of three bytes is stepped over, a malformed
	// sequence not: the bytes after its lead are read
	// ("\xe2<|im_start|>", "\xe2\n\nHuman:": a provider's JSON makes
	// the lead byte U+FFFD and keeps the markup; issue 30, stop 59).
	if b1&0xC0 != 0x80 || b2&0xC0 != 0x80 {
		return 1, invNone
	}
	return 3, invNone
}
