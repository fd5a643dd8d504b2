package textclip

import "testing"

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 4, "abcd…"},
		{"aé", 2, "a…"},  // é is two bytes: the cut steps back to its start
		{"日本語", 4, "日…"}, // three-byte runes
		{"日本語", 0, "…"},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want int
	}{
		{"short", 10, 5},
		{"short", 5, 5},
		{"short", 2, 2},
		{"aé", 2, 1},  // inside é: back to its start
		{"日本語", 5, 3}, // inside 本
		{"日本語", 0, 0},
	} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %d, want %d", c.s, c.n, got, c.want)
		}
	}
}
