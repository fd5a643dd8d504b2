package runtime

import (
	"strings"
	"unicode/utf8"
)

// tailBytes bounds the bytes kept for a stream's tail: enough for
// TailChars characters of up to four bytes each.
const tailBytes = TailChars * utf8.UTFMax

// streamAcc counts one stream's bytes and characters and keeps its tail,
// in bounded memory whatever the stream's size.
type streamAcc struct {
	bytes, chars int64
	// partial holds the first bytes of a character split across chunks.
	partial []byte
	tail    []byte
}

func (s *streamAcc) add(p []byte) {
	s.bytes += int64(len(p))
	s.countChars(p)
	if len(p) >= tailBytes {
		s.tail = append(s.tail[:0], p[len(p)-tailBytes:]...)
		return
	}
	if over := len(s.tail) + len(p) - tailBytes; over > 0 {
		s.tail = s.tail[:copy(s.tail, s.tail[over:])]
	}
	s.tail = append(s.tail, p...)
}

// countChars counts complete characters (an invalid byte counts as one)
// and carries an incomplete one into the next chunk.
func (s *streamAcc) countChars(p []byte) {
	if len(s.partial) > 0 {
		var arr [2 * utf8.UTFMax]byte
		buf := append(append(arr[:0], s.partial...), p[:min(len(p), utf8.UTFMax)]...)
		need, i := len(s.partial), 0
		for i < need {
			if !utf8.FullRune(buf[i:]) {
				// Still incomplete: all of p is in buf.
				s.partial = append(s.partial[:0], buf[i:]...)
				return
			}
			_, size := utf8.DecodeRune(buf[i:])
			s.chars++
			i += size
		}
		s.partial = s.partial[:0]
		p = p[i-need:]
	}
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i > len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	s.chars += int64(utf8.RuneCount(p[:cut]))
	s.partial = append(s.partial, p[cut:]...)
}

// stats renders the stream's statistics: the tail is the last TailChars
// characters, made valid UTF-8.
func (s *streamAcc) stats() StreamStats {
	chars := s.chars + int64(len(s.partial))
	tail := s.tail
	// Drop a character cut in half at the tail's start.
	for i := 0; i < len(tail) && i < utf8.UTFMax && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	text := strings.ToValidUTF8(string(tail), "\uFFFD")
	if n := utf8.RuneCountInString(text); n > TailChars {
		for range n - TailChars {
			_, size := utf8.DecodeRuneInString(text)
			text = text[size:]
		}
	}
	return StreamStats{
		Tail: text, Bytes: s.bytes, Chars: chars,
		Truncated: s.bytes > int64(len(s.tail)) || chars > TailChars,
	}
}
