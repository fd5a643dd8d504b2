package redact

import (
	"regexp"
	"testing"
)

// The expressions compile on first use; a typo must fail here, not in the
// first call that happens to need it.
func TestLazyExpressionsCompile(t *testing.T) {
	all := []func() *regexp.Regexp{urlRe, headerRe, assignRe, jsonPairRe, lineKeyRe}
	for _, k := range tokenTable {
		all = append(all, k.re)
	}
	for i, re := range all {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("expression %d does not compile: %v", i, r)
				}
			}()
			if re() == nil {
				t.Errorf("expression %d compiled to nil", i)
			}
		}()
	}
}
