package argcheck

import (
	"encoding/json"
	"unicode/utf8"

	"demiurge.dev/catalog/internal/jsonvalue"
)

// decodeFast parses an arguments document that is a plain, valid JSON
// object within the bounds decodeArguments sets, giving exactly the value
// decodeArguments gives for it; for anything else (a syntax error, a
// duplicate key, too deep a nesting, a number out of range, a document
// that is not an object) ok is false and decodeArguments takes the
// json.Decoder path, which also writes every error. It exists because
// that path's token API costs about 1.5 µs for even the smallest call.
func decodeFast(doc []byte) (m map[string]any, ok bool) {
	// One copy of the document as a string: every key and plain string
	// value is a part of it, not a copy of its own.
	p := fastParser{b: doc, s: string(doc)}
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return nil, false
	}
	v, ok := p.object(0)
	if !ok {
		return nil, false
	}
	p.space()
	if p.i != len(p.b) {
		return nil, false
	}
	return v, true
}

type fastParser struct {
	b []byte
	s string // b's bytes, copied once: plain strings are cut from it
	i int
}

// space skips what json.Decoder skips between tokens.
func (p *fastParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) next(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// value parses one value; depth counts as decodeValue counts it.
func (p *fastParser) value(depth int) (any, bool) {
	p.space()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; c {
	case '{':
		v, ok := p.object(depth)
		return v, ok
	case '[':
		return p.array(depth)
	case '"':
		s, ok := p.str()
		return s, ok
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return p.number()
		}
	}
	return nil, false
}

func (p *fastParser) object(depth int) (map[string]any, bool) {
	if depth >= maxArgumentDepth {
		return nil, false
	}
	p.i++ // {
	m := map[string]any{}
	if p.next('}') {
		return m, true
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok || !p.next(':') {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[key] = v
		if p.next('}') {
			return m, true
		}
		if !p.next(',') {
			return nil, false
		}
	}
}

func (p *fastParser) array(depth int) (any, bool) {
	if depth >= maxArgumentDepth {
		return nil, false
	}
	p.i++ // [
	a := []any{}
	if p.next(']') {
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if p.next(']') {
			return a, true
		}
		if !p.next(',') {
			return nil, false
		}
	}
}

func (p *fastParser) literal(lit string) bool {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		return false
	}
	p.i += len(lit)
	return true
}

// number keeps the literal as json.Number, as the decoder with UseNumber
// does, and bounds it as decodeValue does.
func (p *fastParser) number() (any, bool) {
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && '1' <= p.b[p.i] && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	lit := string(p.b[start:p.i])
	if jsonvalue.CheckNumber(lit) != nil {
		return nil, false
	}
	return json.Number(lit), true
}

func (p *fastParser) digits() int {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// str parses a string from its opening quote. Text without escapes that
// is valid UTF-8 is what the decoder's unquoting gives unchanged; any
// other string is unquoted by encoding/json itself, as the decoder does.
func (p *fastParser) str() (string, bool) {
	start := p.i
	p.i++ // "
	plain := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			raw := p.b[start:p.i]
			if plain && utf8.Valid(raw) {
				return p.s[start+1 : p.i-1], true
			}
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			p.i += 2 // the escape is checked by Unmarshal
		case c < 0x20:
			return "", false
		default:
			p.i++
		}
	}
	return "", false
}
