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
