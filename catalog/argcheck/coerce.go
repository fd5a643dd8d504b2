package argcheck

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"strings"

	"demiurge.dev/catalog/internal/jsonvalue"
)

// Coerce parses a model's JSON arguments, repairs the model mistakes whose
// repair the schema makes unambiguous, and validates the result. Empty or
// null arguments mean {}. Numbers in the result are json.Number.
//
// Repairs, applied only where the given value is certainly invalid (its
// type is not one the schema allows) and exactly one non-null type is
// allowed: a numeric string for an integer or number ("42"), "true" or
// "false" for a boolean, a JSON-encoded object or array in a string where
// an object or array is expected, and a single value where an array is
// expected (kept only when the one-element array is then valid).
//
// Errors are *ArgumentError.
func (c *Checker) Coerce(args json.RawMessage) (map[string]any, error) {
	m, err := decodeArguments(args)
	if err != nil {
		return nil, err
	}
	// Arguments the simple form certainly accepts have nothing to repair:
	// every value already has a type its schema allows, and no number
	// needs plainInteger's rewriting (the simple form is not certain of
	// an integer spelled with a point or an exponent).
	if c.simple != nil && c.simple.satisfied(m) {
		return m, nil
	}
	if co, ok := coerceValue(m, expandView(c.compiled), 0).(map[string]any); ok {
		m = co
	}
	if c.simple != nil && c.simple.satisfied(m) {
		return m, nil
	}
	if err := checkCost(c.doc, m); err != nil {
		return nil, err
	}
	if err := c.compiled.Validate(m); err != nil {
		return nil, c.argumentError(m, err)
	}
	return m, nil
}

// maxCoerceDepth matches the parser's nesting bound.
const maxCoerceDepth = maxArgumentDepth

func coerceValue(v any, vw view, depth int) any {
	if depth > maxCoerceDepth || len(vw) == 0 {
		return v
	}
	allowed := vw.types(0)
	if typeOf(v)&allowed == 0 {
		if nv, ok := convert(v, allowed&^tNull, vw, depth); ok {
			v = nv
		}
	}
	if n, ok := v.(json.Number); ok && allowed&(tInt|tNum) == tInt {
		v = plainInteger(n)
	}
	switch c := v.(type) {
	case map[string]any:
		ov := vw.narrow(tObj)
		for k, e := range c {
			c[k] = coerceValue(e, ov.property(k), depth+1)
		}
	case []any:
		av := vw.narrow(tArr)
		for i, e := range c {
			c[i] = coerceValue(e, av.item(i), depth+1)
		}
	}
	return v
}

// convert turns v into the single target type, or reports that it cannot.
func convert(v any, target typeSet, vw view, depth int) (any, bool) {
	if target&tNum != 0 {
		target &^= tInt // a number target takes integers too
	}
	if target == 0 || target&(target-1) != 0 {
		return nil, false // no target, or more than one: ambiguous
	}
	str, isStr := v.(string)
	trimmed := strings.TrimSpace(str)
	switch target {
	case tInt, tNum:
		if !isStr || !numberLiteral().MatchString(trimmed) || jsonvalue.CheckNumber(trimmed) != nil {
			return nil, false
		}
		n := json.Number(trimmed)
		if target == tInt && !jsonvalue.IsIntegral(n) {
			return nil, false
		}
		return n, true
	case tBool:
		switch {
		case isStr && strings.EqualFold(trimmed, "true"):
			return true, true
		case isStr && strings.EqualFold(trimmed, "false"):
			return false, true
		}
	case tObj:
		if isStr && strings.HasPrefix(trimmed, "{") {
			if d, ok := decodeEmbedded(trimmed).(map[string]any); ok {
				return d, true
			}
		}
	case tArr:
		if isStr && strings.HasPrefix(trimmed, "[") {
			if d, ok := decodeEmbedded(trimmed).([]any); ok {
				return d, true
			}
		}
		if v == nil {
			return nil, false
		}
		// A single value where a list is expected: wrap it, but keep the
		// wrap only if the list is then valid, so that a wrong guess
		// reports the mistake the model made, not one it did not.
		wrapped := coerceValue([]any{deepCopy(v)}, vw, depth)
		for _, s := range vw {
			if s.Validate(wrapped) != nil {
				return nil, false
			}
		}
		return wrapped, true
	}
	return nil, false
}

// plainInteger writes an integral number the validator accepts as an
// integer (10.0, 1e2) in plain digits, so that a tool decoding it into an
// integer type does not fail on the spelling.
func plainInteger(n json.Number) json.Number {
	if !strings.ContainsAny(string(n), ".eE") || !jsonvalue.IsIntegral(n) {
		return n
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return n
	}
	return json.Number(r.Num().String())
}

// decodeEmbedded parses JSON that a model put inside a string, with the
// same bounds as the arguments themselves; nil when it does not parse.
func decodeEmbedded(s string) any {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	v, err := decodeValue(dec, "", 1)
	if err != nil {
		return nil
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil
	}
	return v
}

// deepCopy copies a decoded JSON value, so that a tentative repair cannot
// alter the value it may have to give back.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}
