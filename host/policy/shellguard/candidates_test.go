package shellguard

import (
	"slices"
	"testing"
)

func TestCandidates(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want []string
	}{
		{"ls -la", nil},
		{"ls\x1b[31m -la\x1b[0m", []string{"ls -la"}},
		{"ls\x1b]0;title\x07 -la", []string{"ls -la"}},
		{"ls\x1b]0;title\x1b\\ -la", []string{"ls -la"}},
		{"ls\u009b1m -la", []string{"ls -la"}},
		{"l\u200bs", []string{"ls"}},
		{"r\u202em -rf /", []string{"rm -rf /"}},
		{"ｌｓ －ｌａ", []string{"ls -la"}},
		// Every step applies: ANSI, then invisible; NFKC to each reading.
		{"\x1b[1mｌ\u200bｓ", []string{"ｌ\u200bｓ", "ｌｓ", "\x1b[1ml\u200bs", "l\u200bs", "ls"}},
	} {
		if got := candidates(tc.raw); !slices.Equal(got, tc.want) {
			t.Errorf("candidates(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// TestHiddenTextAsks: an argument holding a character that can hide text
// (DEL, a C0 or C1 control, a format character such as the soft hyphen
// or a zero-width space) makes an otherwise allowed echo ask; printable
// ASCII, tab and newline do not.
func TestHiddenTextAsks(t *testing.T) {
	for _, c := range []string{"\x7f", "\x01", "\u0085", "\u009f", "\u00ad", "\u200b", "\u2066"} {
		cmd := "echo hi" + c
		if v := Check(cmd, tableOptions); v.Decision != Prompt {
			t.Errorf("Check(%q) = %v %q, want prompt", cmd, v.Decision, v.Reasons)
		}
	}
	for _, cmd := range []string{"echo hi ~!@#%^&*()_+=-{}|:<>?,./;'[]\\`", "echo 'a\tb'", "echo a\necho b"} {
		if hiddenText(cmd) {
			t.Errorf("hiddenText(%q) = true", cmd)
		}
	}
}
