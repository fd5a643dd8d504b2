package runtime

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStreamStats(t *testing.T) {
	// The tools reference's bounded tail (seed 000): 12,000 characters of
	// each stream, the same bound as a foreground call's.
	if TailChars != 12000 {
		t.Fatalf("TailChars = %d; the tools reference keeps a 12,000-character tail", TailChars)
	}
	long := strings.Repeat("é", TailChars+5)
	tests := []struct {
		name      string
		chunks    []string
		bytes     int64
		chars     int64
		tail      string
		truncated bool
	}{
		{"empty", nil, 0, 0, "", false},
		{"ascii", []string{"hello ", "world\n"}, 12, 12, "hello world\n", false},
		{"rune split across chunks", []string{"a\xe2", "\x82", "\xacb"}, 5, 3, "a€b", false},
		{"four-byte rune split in every place", []string{"\xf0", "\x9f", "\x98", "\x80"}, 4, 1, "😀", false},
		{"invalid bytes count one each", []string{"\xff\xfe", "ok"}, 4, 4, "\uFFFDok", false},
		{"truncated rune then ascii", []string{"\xe2\x82", "A"}, 3, 3, "\uFFFDA", false},
		{"dangling start at the end", []string{"x\xe2"}, 2, 2, "x\uFFFD", false},
		{"tail keeps the last characters", []string{long}, int64(len(long)), TailChars + 5, strings.Repeat("é", TailChars), true},
		{"tail across many small chunks", strings.Split(strings.Repeat("0123456789", 2000), ""), 20000, 20000, strings.Repeat("0123456789", 2000)[20000-TailChars:], true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var acc streamAcc
			for _, c := range tt.chunks {
				acc.add([]byte(c))
			}
			got := acc.stats()
			if got.Bytes != tt.bytes || got.Chars != tt.chars || got.Tail != tt.tail || got.Truncated != tt.truncated {
				t.Errorf("stats = bytes %d chars %d truncated %v tail %q…; want bytes %d chars %d truncated %v tail %q…",
					got.Bytes, got.Chars, got.Truncated, shorten(got.Tail, 20), tt.bytes, tt.chars, tt.truncated, shorten(tt.tail, 20))
			}
			if len(acc.tail) > tailBytes {
				t.Errorf("tail buffer holds %d bytes, bound is %d", len(acc.tail), tailBytes)
			}
		})
	}
}

// FuzzStreamStats splits arbitrary bytes (task output is whatever a
// process printed) at arbitrary points: the counts must not depend on the
// split, and the tail must be valid UTF-8 within bounds.
func FuzzStreamStats(f *testing.F) {
	f.Add([]byte("plain text\n"), uint8(3))
	f.Add([]byte("a\xe2\x82\xacb\xf0\x9f\x98\x80"), uint8(1))
	f.Add([]byte("\xff\xe2\x82A\xf0\x9f"), uint8(2))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		n := int(step%7) + 1
		var acc streamAcc
		for i := 0; i < len(data); i += n {
			acc.add(data[i:min(len(data), i+n)])
		}
		st := acc.stats()
		if st.Bytes != int64(len(data)) {
			t.Fatalf("bytes %d, want %d", st.Bytes, len(data))
		}
		if want := int64(utf8.RuneCount(data)); st.Chars != want {
			t.Fatalf("chars %d with chunks of %d, want %d", st.Chars, n, want)
		}
		if !utf8.ValidString(st.Tail) || utf8.RuneCountInString(st.Tail) > TailChars {
			t.Fatalf("tail invalid or too long: %q", st.Tail)
		}
	})
}
