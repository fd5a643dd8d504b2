package redact

import "strings"

// token is one word of a shell-like command line; sep marks a command
// separator (; & | newline) that ends one command and starts the next.
type token struct {
	text string
	sep  bool
}

// tokenize splits a command line the way a POSIX shell would split words,
// well enough to find options and their values: single quotes are literal,
// double quotes honour \" \\ \$ \`, a backslash outside quotes escapes the
// next byte, and unquoted ; & | and newlines separate commands. It never
// fails: an unterminated quote runs to the end. It is linear in len(s).
func tokenize(s string) []token {
	var toks []token
	var cur strings.Builder
	inWord := false
	emit := func() {
		if inWord {
			toks = append(toks, token{text: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			emit()
		case c == '\n' || c == ';' || c == '&' || c == '|':
			emit()
			if len(toks) == 0 || !toks[len(toks)-1].sep {
				toks = append(toks, token{sep: true})
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' { // backslash-newline is a line continuation
					cur.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	emit()
	return toks
}
