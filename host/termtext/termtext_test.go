package termtext

import (
	"strings"
	"testing"
)

func TestPrintableNeutralisesTerminalControl(t *testing.T) {
	in := "a\x1b]52;c;ZXZpbA==\x07b\x1b[2J\x1b[H\u009b31mc\u202edef\r\nok\tend"
	got := Printable(in, 1<<20)
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\r"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q kept %q", got, bad)
		}
	}
	if !strings.Contains(got, "\nok\tend") {
		t.Errorf("newline or tab lost: %q", got)
	}
	if got := Printable("abcdef", 3); got != "abc…" {
		t.Errorf("cut: %q", got)
	}
}

// TestPrintableIsAClosedWorld: what is not a graphic character, newline
// or tab never reaches the terminal, the invisible ones included: Unicode
// tag characters (text a human cannot see that a model reads), zero-width
// characters, other format characters, separators, private use and
// unassigned code points. Letters, marks, symbols and spaces of every
// script stay.
func TestPrintableIsAClosedWorld(t *testing.T) {
	for _, r := range []rune{0xE0001, 0xE0041, 0xE007F, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x180E, 0x2028, 0x2029, 0x061C, 0x200E, 0x2066, 0xE000, 0xF0000, 0x0378, 0x1D173} {
		if got := Printable("a"+string(r)+"b", 100); got != "a?b" {
			t.Errorf("U+%04X: %q", r, got)
		}
		if !Replaced(r) {
			t.Errorf("U+%04X not replaced", r)
		}
	}
	for _, s := range []string{"héllo wörld", "日本語のテキスト", "Ελληνικά", "عربى", "e\u0301", "a\u00a0b\u3000c", "✓ ⚠ €", "👍\ufe0f", "x\ty\nz"} {
		if got := Printable(s, 100); got != s {
			t.Errorf("%q became %q", s, got)
		}
	}
}
