package oracle

import "sort"

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
func Screen(s string) Verdict {
	var f found
	w := newWords()
	n := len(s)
	zwRun, zwStart := 0, 0
	for i := 0; i < n; {
		c := s[i]
		switch class[c] {
		case clsLetter:
			// A word: scan it whole; only a short one whose first two
			// letters begin a vocabulary word is looked up.
			j := i + 1
			for j < n && class[s[j]] == clsLetter {
				j++
			}
			w.idx++
			if j-i <= maxWord && (j-i == 1 && (vocabFirst[c|0x20] || w.idx == w.now+1) || j-i > 1 && (w.idx == w.now+1 || vocabFilter.has(wordKey(s, i, j)))) {
				w.word(&f, s, i, j)
			}
			zwRun = 0
			i = j
			continue
		case clsOther:
			zwRun = 0
		case clsMarkup:
			zwRun = 0
			markupAt(&f, s, i)
		case clsUnicode:
			size, kind := invisibleAt(s, i)
			if kind == invZeroWidth {
				if zwRun == 0 {
					zwStart = i
				}
				zwRun++
				if zwRun == 2 {
					f.add(KindZeroWidthRun, zwStart)
				}
			} else {
				zwRun = 0
				switch kind {
				case invTag:
					f.add(KindUnicodeTags, i)
				case invBidi:
					f.add(KindBidiControls, i)
				}
			}
			i += size
			continue
		}
		i++
	}
	return f.verdict()
}

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
