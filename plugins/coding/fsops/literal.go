package fsops

import "bytes"

// literalFinder finds a literal by scanning (vectorised IndexByte) for its
// rarest byte and verifying around each hit. bytes.Index keys on the first
// byte, which in "errors.New(" is the most common letter of source code.
type literalFinder struct {
	lit  []byte
	rare int // index in lit of the byte scanned for
}

func newLiteralFinder(lit []byte) *literalFinder {
	rare := 0
	for i := range lit {
		if byteRank(lit[i]) < byteRank(lit[rare]) {
			rare = i
		}
	}
	return &literalFinder{lit: lit, rare: rare}
}

// index returns the first offset of the literal in b, or -1.
func (f *literalFinder) index(b []byte) int {
	n := len(f.lit)
	if n == 1 {
		return bytes.IndexByte(b, f.lit[0])
	}
	rb := f.lit[f.rare]
	misses := 0
	for pos := 0; pos+n <= len(b); {
		i := bytes.IndexByte(b[pos+f.rare:len(b)-(n-1-f.rare)], rb)
		if i < 0 {
			return -1
		}
		c := pos + i
		if bytes.Equal(b[c:c+n], f.lit) {
			return c
		}
		pos = c + 1
		// The "rare" byte is common in this text: let the general
		// algorithm take the rest.
		if misses++; misses > 256 && misses*32 > pos {
			if j := bytes.Index(b[pos:], f.lit); j >= 0 {
				return pos + j
			}
			return -1
		}
	}
	return -1
}

// byteRank approximates how common a byte is in source code and prose:
// lower is rarer. The exact order matters little; what matters is that
// lower-case letters, spaces and common punctuation rank high.
func byteRank(c byte) int {
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == 'e' || c == 't':
		return 250
	case c == 'a' || c == 'o' || c == 'i' || c == 'n' || c == 's' || c == 'r':
		return 240
	case c >= 'a' && c <= 'z':
		if c == 'q' || c == 'z' || c == 'x' || c == 'j' {
			return 120
		}
		if c == 'k' || c == 'v' || c == 'w' || c == 'y' || c == 'b' {
			return 170
		}
		return 200
	case c == '.' || c == ',' || c == '(' || c == ')' || c == '"' || c == '=' || c == ';' || c == '_' || c == '/':
		return 180
	case c == '{' || c == '}' || c == '*' || c == ':' || c == '-' || c == '\'' || c == '[' || c == ']' || c == '&':
		return 150
	case c >= '0' && c <= '9':
		return 140
	case c >= 'A' && c <= 'Z':
		if c == 'E' || c == 'T' || c == 'S' || c == 'R' || c == 'I' || c == 'N' || c == 'A' || c == 'C' {
			return 130
		}
		return 100
	case c == '\r' || c == '!' || c == '<' || c == '>' || c == '+' || c == '%' || c == '#' || c == '|':
		return 90
	case c >= 0x80:
		return 60
	default: // ~ ` ^ @ $ ? \ and control bytes
		return 40
	}
}
