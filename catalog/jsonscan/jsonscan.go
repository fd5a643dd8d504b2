// Package jsonscan is the cursor the hand-written JSON readers share
// (argcheck's fast argument parser, the MCP client's plain-answer reader,
// dispatch's structured-result decoder, the MCP server's look at a POST's
// top-level keys): each reads only the
// shapes it knows and leaves the rest to encoding/json. It imports
// nothing, so any module may use it.
package jsonscan

// Scan reads B from I.
type Scan struct {
	B []byte
	I int
}

// Space skips JSON whitespace, what json.Decoder skips between tokens.
func (s *Scan) Space() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Next skips whitespace and then c, if c is next.
func (s *Scan) Next(c byte) bool {
	s.Space()
	if s.I < len(s.B) && s.B[s.I] == c {
		s.I++
		return true
	}
	return false
}

// String reads a string at I (after whitespace): its bytes between the
// quotes as they are, and whether they hold an escape. B must be valid
// JSON text (json.Valid): only then is the string's end where this finds
// it.
func (s *Scan) String() (raw []byte, escaped, ok bool) {
	if !s.Next('"') {
		return nil, false, false
	}
	start := s.I
	for ; s.I < len(s.B); s.I++ {
		switch s.B[s.I] {
		case '\\':
			escaped = true
			s.I++
		case '"':
			raw = s.B[start:s.I]
			s.I++
			return raw, escaped, true
		}
	}
	return nil, false, false
}

// Skip skips one value at I (after whitespace) of valid JSON text (see
// String), without reading it.
func (s *Scan) Skip() {
	s.Space()
	if s.I >= len(s.B) {
		return
	}
	switch s.B[s.I] {
	case '"':
		s.String()
	case '{', '[':
		depth := 0
		for s.I < len(s.B) {
			switch s.B[s.I] {
			case '"':
				s.String()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.I++
			if depth == 0 {
				return
			}
		}
	default: // a number or a literal
		for s.I < len(s.B) {
			switch s.B[s.I] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.I++
		}
	}
}
