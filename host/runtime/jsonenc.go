package runtime

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalData encodes an event's data exactly as json.Marshal does, byte
// for byte, HTML escaping and sorted keys included. Every call writes one
// event, and json.Marshal spends most of its time on reflection and on
// sorting map keys through it: strings, booleans, integers, string slices
// and nested maps and slices of those are written directly here, and any
// other value is handed to json.Marshal.
func MarshalData(data map[string]any) (json.RawMessage, error) {
	return appendJSON(make([]byte, 0, 512), data, 0)
}

// maxDirectDepth hands deeper values to json.Marshal, whose cycle check a
// recursive walk would otherwise lack.
const maxDirectDepth = 64

func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDirectDepth {
		return appendMarshalled(b, v)
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendJSONString(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case uint64:
		return strconv.AppendUint(b, v, 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		return append(b, ']'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return appendObject(b, v, func(b []byte, e any) ([]byte, error) { return appendJSON(b, e, depth+1) })
	case map[string]string:
		return appendObject(b, v, func(b []byte, e string) ([]byte, error) { return appendJSONString(b, e), nil })
	}
	// Floats, structs, named types, marshalers: json.Marshal knows best.
	return appendMarshalled(b, v)
}

func appendMarshalled(b []byte, v any) ([]byte, error) {
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendJSONString is encoding/json's string encoding with HTML escaping,
// which json.Marshal uses: invalid UTF-8 becomes \ufffd, and <, >, &,
// U+2028 and U+2029 are escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
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
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendObject writes a map as a JSON object with sorted keys, as
// encoding/json does.
func appendObject[V any](b []byte, m map[string]V, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = value(append(appendJSONString(b, k), ':'), m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
