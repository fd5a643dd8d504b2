package redact

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use. Compiling this package's
// expressions at init cost every demiurge command about 5 ms, also the
// many that never redact anything.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
