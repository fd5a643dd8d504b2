package policy

import (
	"sync"
	"sync/atomic"
)

// A capability a wildcard grant would cover is validated before the
// wildcard counts (Has): the same few names (mcp.call:<server>) are asked
// about on every call, and the validation runs regular expressions, so
// the names found valid are remembered. Validity is a function of the
// name alone; an invalid name is never remembered and so is judged anew
// each time. The memory is bounded: past validMemoMax names nothing more
// is added.
const validMemoMax = 4096

var (
	validMemo  sync.Map // capability string → struct{}
	validCount atomic.Int64
)

// validCapability is ValidateCapability(c) == nil, remembered when true.
func validCapability(c string) bool {
	if _, ok := validMemo.Load(c); ok {
		return true
	}
	if ValidateCapability(c) != nil {
		return false
	}
	if validCount.Load() < validMemoMax {
		if _, loaded := validMemo.LoadOrStore(c, struct{}{}); !loaded {
			validCount.Add(1)
		}
	}
	return true
}
