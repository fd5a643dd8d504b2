package dispatch

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"demiurge.dev/catalog/jsonscan"
	"demiurge.dev/host/redact"
)

// fastObject decodes the common shape of a structured result (a JSON
// object of plain strings with the short escapes, numbers, booleans, null,
// arrays and objects) to exactly what encoding/json's Unmarshal into an
// interface gives. It is only a shortcut: ok is false on anything outside
// that shape or not valid JSON (\u escapes, bytes that are not UTF-8,
// numbers that do not parse, nesting past fastMaxDepth, trailing data),
// and the caller then asks encoding/json. FuzzStructuredObject holds it
// equal to encoding/json.
func fastObject(b []byte) (m map[string]any, ok bool) {
	m, _, ok = fastObjectPlain(b)
	return m, ok
}

// fastObjectPlain is fastObject that also says whether no key is a
// redact.SecretName and the text, which the shortcut takes only without
// \u escapes, is redact.PlainJSONText (redact.Raw.StructuredPlain):
// redaction then need not walk the result in a call without secrets.
func fastObjectPlain(b []byte) (m map[string]any, plain, ok bool) {
	// One copy of the input as a string: every key and unescaped string
	// value is a part of it, not a copy of its own (a read_file result's
	// eleven keys and their values were twenty allocations).
	d := fastDecoder{Scan: jsonscan.Scan{B: b}, s: string(b), plain: true}
	d.Space()
	if d.I >= len(d.B) || d.B[d.I] != '{' {
		return nil, false, false
	}
	v, ok := d.value(0)
	if !ok {
		return nil, false, false
	}
	d.Space()
	if d.I != len(d.B) {
		return nil, false, false
	}
	m, ok = v.(map[string]any)
	return m, ok && d.plain && redact.PlainJSONText(d.s), ok
}

// fastMaxDepth bounds nesting on the shortcut (encoding/json's own bound
// is 10,000; deeper input goes to it).
const fastMaxDepth = 64

type fastDecoder struct {
	jsonscan.Scan        // the text and the place read to
	s             string // B's bytes, copied once: strings are cut from it
	// plain stays true while no key read is a redact.SecretName; once
	// false the keys are not asked about again.
	plain bool
	// scan reads without making values (scanObject): value returns nil
	// for everything but the top-level exit_code member, and the top
	// object's distinct keys are counted into keys.
	scan     bool
	keys     int
	exitCode any
}

// structuredScan is what scanObject learns of a structured result
// without decoding it (redact.Deferred).
type structuredScan struct {
	text     string // the input, copied: the protobuf message owns it
	keys     int    // distinct top-level keys
	exitCode any    // the top-level exit_code member as fastObject decodes it; nil: none
	plain    bool   // as fastObjectPlain says
}

// scanObject reads b as fastObjectPlain does, making nothing but the copy
// of its text: ok and every fact are as fastObjectPlain(b) gives them (as
// many keys as its map, the same exit_code member, the same plain), which
// FuzzStructuredObject holds.
func scanObject(b []byte) (s structuredScan, ok bool) {
	d := fastDecoder{Scan: jsonscan.Scan{B: b}, s: string(b), plain: true, scan: true}
	d.Space()
	if d.I >= len(d.B) || d.B[d.I] != '{' {
		return s, false
	}
	if _, ok := d.value(0); !ok {
		return s, false
	}
	d.Space()
	if d.I != len(d.B) {
		return s, false
	}
	return structuredScan{text: d.s, keys: d.keys, exitCode: d.exitCode, plain: d.plain && redact.PlainJSONText(d.s)}, true
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if depth > fastMaxDepth || d.I >= len(d.B) {
		return nil, false
	}
	switch c := d.B[d.I]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		s, ok := d.str(!d.scan)
		if d.scan {
			return nil, ok // a string in an interface is an allocation
		}
		return s, ok
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	}
	return nil, false
}

func (d *fastDecoder) word(w string) bool {
	if len(d.B)-d.I < len(w) || string(d.B[d.I:d.I+len(w)]) != w {
		return false
	}
	d.I += len(w)
	return true
}

// member is one key and value of an object being read.
type member struct {
	k string
	v any
}

func (d *fastDecoder) object(depth int) (any, bool) {
	d.I++ // '{'
	// The members are gathered first (on the stack, up to 16) and the map
	// made at its size: a map grown one member at a time was allocated
	// three times for a read_file result's eleven.
	var small [16]member
	ms := small[:0]
	d.Space()
	if d.I < len(d.B) && d.B[d.I] == '}' {
		d.I++
		if d.scan {
			return nil, true
		}
		return map[string]any{}, true
	}
	for {
		d.Space()
		if d.I >= len(d.B) || d.B[d.I] != '"' {
			return nil, false
		}
		k, ok := d.str(true)
		if !ok {
			return nil, false
		}
		if d.plain && redact.SecretName(k) {
			d.plain = false
		}
		d.Space()
		if d.I >= len(d.B) || d.B[d.I] != ':' {
			return nil, false
		}
		d.I++
		d.Space()
		var v any
		if d.scan && depth == 0 && k == "exit_code" {
			// The one member a scan decodes (the last wins, as in the map).
			d.scan = false
			v, ok = d.value(depth + 1)
			d.scan, d.exitCode = true, v
		} else {
			v, ok = d.value(depth + 1)
		}
		if !ok {
			return nil, false
		}
		if !d.scan || depth == 0 { // a scan counts the top object's keys alone
			ms = append(ms, member{k, v})
		}
		if done, ok := d.next('}'); !ok {
			return nil, false
		} else if done {
			if d.scan {
				if depth == 0 {
					d.keys = distinctKeys(ms)
				}
				return nil, true
			}
			m := make(map[string]any, len(ms))
			for _, e := range ms {
				m[e.k] = e.v // a repeated key: the last wins, as in encoding/json
			}
			return m, true
		}
	}
}

// distinctKeys is how many keys of an object's members differ (the
// length of the map they would make).
func distinctKeys(ms []member) int {
	if len(ms) > 16 { // past the stack's members: every pair would cost more
		seen := make(map[string]struct{}, len(ms))
		for _, e := range ms {
			seen[e.k] = struct{}{}
		}
		return len(seen)
	}
	n := 0
	for i, e := range ms {
		if !slices.ContainsFunc(ms[i+1:], func(o member) bool { return o.k == e.k }) {
			n++
		}
	}
	return n
}

func (d *fastDecoder) array(depth int) (any, bool) {
	d.I++ // '['
	var a []any
	if !d.scan {
		a = make([]any, 0)
	}
	d.Space()
	if d.I < len(d.B) && d.B[d.I] == ']' {
		d.I++
		return a, true
	}
	for {
		d.Space()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		if !d.scan {
			a = append(a, v)
		}
		if done, ok := d.next(']'); !ok {
			return nil, false
		} else if done {
			return a, true
		}
	}
}

// next reads what follows a member: a ',' (done false) or the closing
// byte (done true); ok is false on anything else.
func (d *fastDecoder) next(closing byte) (done, ok bool) {
	d.Space()
	if d.I >= len(d.B) {
		return false, false
	}
	switch d.B[d.I] {
	case ',':
		d.I++
		return false, true
	case closing:
		d.I++
		return true, true
	}
	return false, false
}

// str reads a string with no \u escape, of valid UTF-8 and no control
// byte; anything else is left to encoding/json. Without build a string
// with escapes is only checked, and "" returned: its pieces between the
// escapes are checked one by one, as the one-byte characters the escapes
// stand for end no UTF-8 sequence and begin none.
func (d *fastDecoder) str(build bool) (string, bool) {
	d.I++ // '"'
	start := d.I
	var buf []byte // set at the first escape
	escaped := false
	for d.I < len(d.B) {
		c := d.B[d.I]
		switch {
		case c == '"':
			seg := d.s[start:d.I]
			d.I++
			if !escaped || !build {
				if !utf8.ValidString(seg) {
					return "", false
				}
				if escaped {
					return "", true
				}
				return seg, true
			}
			buf = append(buf, seg...)
			if !utf8.Valid(buf) {
				return "", false
			}
			return string(buf), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if d.I+1 >= len(d.B) {
				return "", false
			}
			var r byte
			switch d.B[d.I+1] {
			case '"', '\\', '/':
				r = d.B[d.I+1]
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default: // \u and invalid escapes
				return "", false
			}
			if build {
				buf = append(buf, d.B[start:d.I]...)
				buf = append(buf, r)
			} else if !utf8.Valid(d.B[start:d.I]) {
				return "", false
			}
			escaped = true
			d.I += 2
			start = d.I
		default:
			d.I++
		}
	}
	return "", false
}

// number reads a number by JSON's grammar and parses it as encoding/json
// does (a float64); one out of range is left to encoding/json.
func (d *fastDecoder) number() (any, bool) {
	start := d.I
	digits := func() int {
		n := 0
		for d.I < len(d.B) && '0' <= d.B[d.I] && d.B[d.I] <= '9' {
			d.I++
			n++
		}
		return n
	}
	if d.B[d.I] == '-' {
		d.I++
	}
	if d.I < len(d.B) && d.B[d.I] == '0' {
		d.I++
	} else if digits() == 0 {
		return nil, false
	}
	if d.I < len(d.B) && d.B[d.I] == '.' {
		d.I++
		if digits() == 0 {
			return nil, false
		}
	}
	if d.I < len(d.B) && (d.B[d.I] == 'e' || d.B[d.I] == 'E') {
		d.I++
		if d.I < len(d.B) && (d.B[d.I] == '+' || d.B[d.I] == '-') {
			d.I++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(d.s[start:d.I], 64)
	if err != nil || d.scan {
		return nil, err == nil
	}
	return boxFloat(f), true
}

// smallFloats hold the whole numbers 0 to 1023 as float64 interface
// values: line numbers, counts and small sizes fill structured results,
// and putting a float64 in an interface allocates each time. An
// interface value cannot be changed, so every result may share them.
var smallFloats = func() (v [1024]any) {
	for i := range v {
		v[i] = float64(i)
	}
	return v
}()

// boxFloat is any(f), shared for a whole number 0 to 1023 (not -0, which
// the comparison would let through: its sign must be kept).
func boxFloat(f float64) any {
	if f >= 0 && f < float64(len(smallFloats)) && f == math.Trunc(f) && !math.Signbit(f) {
		return smallFloats[int(f)]
	}
	return f
}
