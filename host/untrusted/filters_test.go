package untrusted

import (
	"strings"
	"testing"
)

// foldVariants is w in lower and upper case and with each ASCII letter
// alone in the other case.
func foldVariants(w string) []string {
	vs := []string{strings.ToLower(w), strings.ToUpper(w)}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c|0x20 >= 'a' && c|0x20 <= 'z' {
			vs = append(vs, w[:i]+string(c^0x20)+w[i+1:])
		}
	}
	return vs
}

// TestMayOpenMarkupPassesEveryMarkup: markupAt is asked only where
// mayOpenMarkup passes (the scan and the specials), so every spelling of
// markupByLead, in any case, and "<|" with any byte after it must pass,
// and be found, alone and inside text, as the oracle finds it. What it
// keeps out (the paragraph breaks of Markdown) is said last.
func TestMayOpenMarkupPassesEveryMarkup(t *testing.T) {
	n := 0
	for _, second := range markupByLead {
		if second == nil {
			continue
		}
		for _, ms := range second {
			for _, m := range ms {
				for _, v := range foldVariants(m.text) {
					n++
					if !mayOpenMarkup(v, 0) || !mayOpenMarkup("x "+v, 2) {
						t.Errorf("%q (%s): mayOpenMarkup false", v, m.kind)
					}
					kind := m.kind
					if strings.HasPrefix(v, "<|") {
						kind = KindRoleMarkup // a special token first (specialToken)
					}
					if !hasKind(Screen(v+" x"), kind) {
						t.Errorf("%q: no %s", v, kind)
					}
					for _, s := range []string{v, "see " + v + " here", strings.Repeat("z ", 40) + v} {
						sameAsOracle(t, s)
					}
				}
			}
		}
	}
	if n < 150 {
		t.Fatalf("only %d spellings", n)
	}
	for c := 0; c < 256; c++ {
		s := "<|" + string(byte(c)) + "x|>"
		if !mayOpenMarkup(s, 0) {
			t.Errorf("%q: mayOpenMarkup false", s)
		}
	}
	for _, s := range []string{"<|im_middle|>", "<|end tool output|>", "<|0|>", "<|-|>", "<| |>"} {
		if !hasKind(Screen("x "+s), KindRoleMarkup) {
			t.Errorf("%q: no role markup", s)
		}
	}
	for _, s := range []string{"\n\nThe", "\n\n#", "\n\n-", "\"name\"", "[the", "<div"} {
		if mayOpenMarkup(s, 0) {
			t.Errorf("%q: mayOpenMarkup passes it", s)
		}
	}
}
