package argcheck

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// simpleSchema is a schema written only with keywords whose meaning is
// plain: type, properties, required, additionalProperties as a boolean,
// items as a schema, minLength and maxLength, minimum and maximum written
// as integers, and annotations. Most tool
// schemas (MCP tools' especially) are of this kind. For them, a value that
// certainly satisfies the schema is recognised without the validator,
// which costs about a microsecond a call even for one string; anything it
// is not certain of, and every value that fails, goes to the validator,
// which decides and writes the errors. So it can only skip a check whose
// answer is yes, never refuse or accept differently.
type simpleSchema struct {
	types          jsonTypes // 0: any type
	props          map[string]*simpleSchema
	required       []string
	closed         bool // additionalProperties: false
	items          *simpleSchema
	minLen, maxLen int // -1: no bound
	// min and max are minimum and maximum; only an integer value in plain
	// digits is certain to meet them (any other number: the validator).
	min, max intBound
}

// intBound is an inclusive bound written as an integer in plain digits.
type intBound struct {
	set bool
	n   int64
}

type jsonTypes uint8

const (
	jNull jsonTypes = 1 << iota
	jBool
	jInteger
	jNumber
	jString
	jObject
	jArray
)

var jsonTypeNames = map[string]jsonTypes{
	"null": jNull, "boolean": jBool, "integer": jInteger, "number": jNumber,
	"string": jString, "object": jObject, "array": jArray,
}

// annotations are keywords that never change whether a value is valid.
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// maxSimpleDepth bounds the schema nesting compileSimple follows.
const maxSimpleDepth = 32

// compileSimple returns the simple form of a parsed schema document, or
// nil when it has any keyword or form outside that set, at any depth.
func compileSimple(doc any, depth int) *simpleSchema {
	m, ok := doc.(map[string]any)
	if !ok || depth > maxSimpleDepth {
		return nil
	}
	s := &simpleSchema{minLen: -1, maxLen: -1}
	for k, v := range m {
		switch {
		case annotations[k]:
		case k == "type":
			if s.types = parseTypes(v); s.types == 0 {
				return nil
			}
		case k == "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			s.props = make(map[string]*simpleSchema, len(props))
			for name, p := range props {
				if s.props[name] = compileSimple(p, depth+1); s.props[name] == nil {
					return nil
				}
			}
		case k == "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, e := range list {
				name, ok := e.(string)
				if !ok {
					return nil
				}
				s.required = append(s.required, name)
			}
		case k == "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				return nil
			}
			s.closed = !b
		case k == "items":
			if s.items = compileSimple(v, depth+1); s.items == nil {
				return nil
			}
		case k == "minLength":
			if s.minLen = count(v); s.minLen < 0 {
				return nil
			}
		case k == "maxLength":
			if s.maxLen = count(v); s.maxLen < 0 {
				return nil
			}
		case k == "minimum":
			if s.min = parseBound(v); !s.min.set {
				return nil
			}
		case k == "maximum":
			if s.max = parseBound(v); !s.max.set {
				return nil
			}
		default:
			return nil
		}
	}
	return s
}

// parseTypes reads "type" as a name or a list of names; 0 if it is
// neither or names something else.
func parseTypes(v any) jsonTypes {
	switch t := v.(type) {
	case string:
		return jsonTypeNames[t]
	case []any:
		var set jsonTypes
		for _, e := range t {
			name, _ := e.(string)
			bit := jsonTypeNames[name]
			if bit == 0 {
				return 0
			}
			set |= bit
		}
		return set
	}
	return 0
}

// count reads a non-negative integer written in plain digits; -1 if it is
// anything else.
func count(v any) int {
	n, ok := v.(json.Number)
	if !ok || !plainDigits(string(n)) || len(n) > 9 {
		return -1
	}
	i, err := strconv.Atoi(string(n))
	if err != nil {
		return -1
	}
	return i
}

// parseBound reads minimum or maximum: an integer in plain digits of at
// most 18 of them, with a sign; unset for anything else (1.5, 1e3), which
// leaves the schema to the validator.
func parseBound(v any) intBound {
	n, ok := v.(json.Number)
	if !ok {
		return intBound{}
	}
	i, ok := plainInt(string(n))
	return intBound{set: ok, n: i}
}

// plainInt parses an integer in plain digits with an optional '-', of at
// most 18 digits (so it fits an int64 exactly); ok is false otherwise.
func plainInt(lit string) (int64, bool) {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if !plainDigits(digits) || len(digits) > 18 {
		return 0, false
	}
	i, err := strconv.ParseInt(lit, 10, 64)
	return i, err == nil
}

func plainDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// satisfied reports whether v certainly satisfies the schema. False means
// "not certain": the validator decides.
func (s *simpleSchema) satisfied(v any) bool {
	var t jsonTypes
	switch x := v.(type) {
	case nil:
		t = jNull
	case bool:
		t = jBool
	case string:
		t = jString
		if s.minLen >= 0 || s.maxLen >= 0 {
			// The validator counts characters as utf8.RuneCount does.
			n := utf8.RuneCountInString(x)
			if s.minLen >= 0 && n < s.minLen || s.maxLen >= 0 && n > s.maxLen {
				return false
			}
		}
	case json.Number:
		t = jNumber
		lit := string(x)
		if len(lit) > 0 && lit[0] == '-' {
			lit = lit[1:]
		}
		if plainDigits(lit) {
			t |= jInteger
		}
		if s.min.set || s.max.set {
			i, ok := plainInt(string(x))
			if !ok || s.min.set && i < s.min.n || s.max.set && i > s.max.n {
				return false
			}
		}
	case map[string]any:
		t = jObject
		for _, name := range s.required {
			if _, ok := x[name]; !ok {
				return false
			}
		}
		for k, e := range x {
			p, declared := s.props[k]
			switch {
			case declared:
				if !p.satisfied(e) {
					return false
				}
			case s.closed:
				return false
			}
		}
	case []any:
		t = jArray
		if s.items != nil {
			for _, e := range x {
				if !s.items.satisfied(e) {
					return false
				}
			}
		}
	default:
		return false
	}
	// A number whose spelling is not plain digits may still be an integer
	// (1.0, 1e2): not certain, so an integer-only schema leaves it to the
	// validator.
	return s.types == 0 || s.types&t != 0
}
