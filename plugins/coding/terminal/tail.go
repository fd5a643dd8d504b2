package terminal

import (
	"strings"
	"unicode/utf8"
)

// TailChars is how many characters of each stream a call keeps in memory.
const TailChars = 12000

// tail keeps the last bytes of a stream in a ring big enough for TailChars
// characters of four bytes each, and counts bytes and characters, so the
// whole output is never held.
type tail struct {
	ring  []byte
	next  int  // where the next byte goes
	full  bool // the ring has wrapped
	bytes int64
	chars int64
	// partial holds the first bytes of a character split across writes.
	partial [utf8.UTFMax]byte
	npart   int
}

func newTail() *tail { return &tail{ring: make([]byte, TailChars*utf8.UTFMax)} }

func (t *tail) Write(p []byte) (int, error) {
	t.bytes += int64(len(p))
	t.count(p)
	if len(p) >= len(t.ring) {
		copy(t.ring, p[len(p)-len(t.ring):])
		t.next, t.full = 0, true
		return len(p), nil
	}
	n := copy(t.ring[t.next:], p)
	if n < len(p) {
		copy(t.ring, p[n:])
		t.full = true
	}
	t.next = (t.next + len(p)) % len(t.ring)
	if t.next == 0 && len(p) > 0 {
		t.full = true
	}
	return len(p), nil
}

// count adds the characters of p, as utf8.RuneCount would count the whole
// stream: a character split across writes is counted once, each invalid
// byte as one.
func (t *tail) count(p []byte) {
	if t.npart > 0 {
		for len(p) > 0 && t.npart < utf8.UTFMax && !utf8.FullRune(t.partial[:t.npart]) {
			t.partial[t.npart] = p[0]
			t.npart++
			p = p[1:]
		}
		if !utf8.FullRune(t.partial[:t.npart]) {
			return // still incomplete, and p is used up
		}
		_, size := utf8.DecodeRune(t.partial[:t.npart])
		t.chars++
		// Bytes after an invalid lead byte start over as input.
		rest := append([]byte(nil), t.partial[size:t.npart]...)
		t.npart = 0
		if len(rest) > 0 {
			t.count(rest)
		}
	}
	// ASCII fast path, eight bytes at a time.
	for len(p) >= 8 {
		if (uint64(p[0])|uint64(p[1])|uint64(p[2])|uint64(p[3])|uint64(p[4])|uint64(p[5])|uint64(p[6])|uint64(p[7]))&0x80 != 0 {
			break
		}
		t.chars += 8
		p = p[8:]
	}
	for len(p) > 0 {
		if p[0] < utf8.RuneSelf {
			t.chars++
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			t.npart = copy(t.partial[:], p)
			return
		}
		_, size := utf8.DecodeRune(p)
		t.chars++
		p = p[size:]
	}
}

// finish counts a character left incomplete at the end of the stream, as
// utf8.RuneCount counts each byte of it.
func (t *tail) finish() {
	t.chars += int64(t.npart)
	t.npart = 0
}

// text is the last TailChars characters, as valid UTF-8, and whether
// anything before them was left out.
func (t *tail) text() (string, bool) {
	var b []byte
	if t.full {
		b = append(append(b, t.ring[t.next:]...), t.ring[:t.next]...)
		// The oldest bytes may be the end of a cut character.
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	} else {
		b = t.ring[:t.next]
	}
	s := string(b)
	if n := utf8.RuneCountInString(s); n > TailChars {
		for i := range s {
			if n == TailChars {
				s = s[i:]
				break
			}
			n--
		}
	}
	return strings.ToValidUTF8(s, "\uFFFD"), t.bytes > int64(len(s))
}
