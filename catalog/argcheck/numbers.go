package argcheck

import (
	"regexp"
	"sync"
)

// numberLiteral compiles on first use: only a repair of a numeric string
// needs it.
var numberLiteral = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
})
