// Package jsonscan is the cursor the hand-written JSON readers share
// (argcheck's fast argument parser, the MCP client's plain-answer reader,
// the MCP server's look at a POST's top-level keys): each reads only the
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
