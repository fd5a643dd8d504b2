package redact

import (
	"encoding/json"
	"strings"
)

// numberBytes are every byte strconv writes for a Go number ('f' format,
// NaN, ±Inf), in either case.
const numberBytes = "0123456789.-+nNaAiIfF"

// numbersHoldNoToken: no token format's anchor can stand in a number's
// text (each has a byte no number is written with), so the token table
// never changes one.
var numbersHoldNoToken = func() bool {
	for _, k := range tokenTable {
		for _, a := range k.anchors {
			if strings.Trim(a, numberBytes) == "" {
				return false
			}
		}
	}
	return true
}()

// plainNumber reports that v, a Go number, is its own redaction: the call
// has no exact secret that its text could be, and no token format fits in
// it. Most results hold numbers (sizes, counts, lines), and formatting
// each to find that out was a share of every call. A json.Number is text
// of any kind and always takes the long way.
func (r *redactor) plainNumber(v any) bool {
	if _, text := v.(json.Number); text {
		return false
	}
	return r.exact == noSecrets && numbersHoldNoToken
}
