package mcp

import "strconv"

// floatsFit reports whether every number in js (valid JSON) fits a
// float64. mcp-go decodes a result's structured content into Go values
// and refuses the whole result when a number does not (1e400); the host,
// which keeps the raw bytes, sends such a result to mcp-go's parser so
// that it is refused the same way. Only a number with an exponent or
// more than 308 digits can overflow, so the others are not parsed.
func floatsFit(js []byte) bool {
	for i := 0; i < len(js); i++ {
		switch c := js[i]; {
		case c == '"': // skip the string, escapes and all
			for i++; i < len(js) && js[i] != '"'; i++ {
				if js[i] == '\\' {
					i++
				}
			}
		case c == '-' || c >= '0' && c <= '9':
			j, exp := i, false
			for ; j < len(js) && isNumberByte(js[j]); j++ {
				exp = exp || js[j] == 'e' || js[j] == 'E'
			}
			if exp || j-i > 308 {
				if _, err := strconv.ParseFloat(string(js[i:j]), 64); err != nil {
					return false
				}
			}
			i = j - 1
		}
	}
	return true
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
