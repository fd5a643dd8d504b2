// Package jsonenc is the one JSON encoder of events and records (used by
// host/runtime, host/redact and host/dispatch): it writes values byte for
// byte as encoding/json does, without its reflection on the common types.
// The audit event (with HTML escaping, as json.Marshal) and the approval
// preview (without, as an Encoder with SetEscapeHTML(false)) are encoded
// on every call.
package jsonenc

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Scalar appends v if it is nil, a bool, a string, a finite float64 or a
// Go integer, and reports whether it did; anything else (and a float JSON
// cannot hold) is left to encoding/json, which encodes it or says why not.
func Scalar(b []byte, v any, escapeHTML bool) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return String(b, v, escapeHTML), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, false
		}
		return Float(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case int32:
		return strconv.AppendInt(b, int64(v), 10), true
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), true
	}
	return b, false
}

// Float is encoding/json's float64 encoding: like %g, with the exponent
// cut-offs of ES6 and no zero padding in the exponent. f must be finite.
func Float(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// safe and htmlSafe are the ASCII bytes written as they are, without and
// with HTML escaping.
var safe, htmlSafe = func() (s, h [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		s[c] = c != '"' && c != '\\'
		h[c] = s[c] && c != '<' && c != '>' && c != '&'
	}
	return s, h
}()

// String is encoding/json's string encoding: quotes, backslashes and
// control bytes escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped, and with escapeHTML also <, > and &.
func String(b []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	plain := &safe
	if escapeHTML {
		plain = &htmlSafe
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
