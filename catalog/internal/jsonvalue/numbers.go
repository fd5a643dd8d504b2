// Package jsonvalue holds the few facts about decoded JSON values that the
// catalog (parsing schemas) and argcheck (coercing arguments) must agree
// on: number bounds, what counts as an integer, and type names for
// messages.
package jsonvalue

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Number literals are bounded before anything parses them exactly: the
// validator uses big.Rat, and "1e9999999" costs big.Rat seconds. No tool
// argument or schema keyword needs more than this.
const (
	MaxNumberLen      = 100
	MaxNumberExponent = 400
)

// CheckNumber reports whether a JSON number literal is within the bounds
// above. The literal is assumed to be valid JSON number syntax.
func CheckNumber(lit string) error {
	if len(lit) > MaxNumberLen {
		return fmt.Errorf("number %s… has more than %d characters", lit[:20], MaxNumberLen)
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		if err != nil || exp > MaxNumberExponent || exp < -MaxNumberExponent {
			return fmt.Errorf("number %s is out of range", lit)
		}
	}
	return nil
}

// IsIntegral matches the validator's notion of an integer: a number with
// no fractional part, so 42.0 and 1e3 count.
func IsIntegral(n json.Number) bool {
	lit := string(n)
	if !strings.ContainsAny(lit, ".eE") {
		return true
	}
	if CheckNumber(lit) != nil {
		return false
	}
	r, ok := new(big.Rat).SetString(lit)
	return ok && r.IsInt()
}

// CheckNumbersIn walks a decoded JSON document and bounds every number in it.
func CheckNumbersIn(v any) error {
	switch t := v.(type) {
	case json.Number:
		return CheckNumber(string(t))
	case map[string]any:
		for _, e := range t {
			if err := CheckNumbersIn(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := CheckNumbersIn(e); err != nil {
				return err
			}
		}
	}
	return nil
}
