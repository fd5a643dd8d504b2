package textedit

import "testing"

// TestCountStartsCountsOverlappingOccurrences: every offset sub starts at,
// overlapping ones too.
func TestCountStartsCountsOverlappingOccurrences(t *testing.T) {
	for _, tc := range []struct {
		s, sub string
		want   int
	}{
		{"\t\t}\n\t}\n}\n}\n", "}\n}\n", 2},
		{"aaaa", "aa", 3},
		{"abcabcabc", "abcabc", 2},
		{"abc", "abc", 1},
		{"abc", "x", 0},
		{"ab|ab", "ab", 2},
	} {
		if got := CountStarts(tc.s, tc.sub); got != tc.want {
			t.Errorf("CountStarts(%q, %q) = %d, want %d", tc.s, tc.sub, got, tc.want)
		}
	}
}
