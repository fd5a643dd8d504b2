package hiddentext

import "testing"

func TestFirst(t *testing.T) {
	for s, want := range map[string]rune{
		"plain text, é and 😀 and a joiner \u200d": 0,
		"a\U000E0041b":       0xE0041,
		"\U000E0000":         0xE0000,
		"\U000E007F":         0xE007F,
		"x\u202Ey":           0x202E,
		"\u202A":             0x202A,
		"\u2066\u2069":       0x2066,
		"\u2069":             0x2069,
		"\u2065\u202F\u2029": 0,
	} {
		r, ok := First(s)
		if ok != (want != 0) || r != want {
			t.Errorf("First(%q) = %U %v, want %U", s, r, ok, want)
		}
	}
}
