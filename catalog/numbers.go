package catalog

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Number literals are bounded before anything parses them exactly: the
// validator uses big.Rat, and "1e9999999" costs big.Rat seconds. No tool
// argument or schema keyword needs more than this.
const (
	maxNumberLen      = 100
	maxNumberExponent = 400
)

// numberLiteral compiles on first use: only a repair of a numeric string
// needs it.
var numberLiteral = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
})

// checkNumber reports whether a JSON number literal is within the bounds
// above. The literal is assumed to be valid JSON number syntax.
func checkNumber(lit string) error {
	if len(lit) > maxNumberLen {
		return fmt.Errorf("number %s… has more than %d characters", lit[:20], maxNumberLen)
	}
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
		if err != nil || exp > maxNumberExponent || exp < -maxNumberExponent {
			return fmt.Errorf("number %s is out of range", lit)
		}
	}
	return nil
}

// isIntegral matches the validator's notion of an integer: a number with
// no fractional part, so 42.0 and 1e3 count.
func isIntegral(n json.Number) bool {
	lit := string(n)
	if !strings.ContainsAny(lit, ".eE") {
		return true
	}
	if checkNumber(lit) != nil {
		return false
	}
	r, ok := new(big.Rat).SetString(lit)
	return ok && r.IsInt()
}

// checkNumbersIn walks a decoded JSON document and bounds every number in it.
func checkNumbersIn(v any) error {
	switch t := v.(type) {
	case json.Number:
		return checkNumber(string(t))
	case map[string]any:
		for _, e := range t {
			if err := checkNumbersIn(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := checkNumbersIn(e); err != nil {
				return err
			}
		}
	}
	return nil
}
