package plugins

import (
	"os"
	"sync"
)

var (
	stdinOnce     sync.Once
	operatorStdin = os.Stdin
)

// detachStdin points os.Stdin at /dev/null for the rest of the process.
// go-plugin hands os.Stdin to every plugin it starts, and a plugin must
// never read the operator's terminal (it could swallow approval answers).
// The host reads its operator through OperatorStdin instead.
func detachStdin() {
	stdinOnce.Do(func() {
		operatorStdin = os.Stdin
		if null, err := os.Open(os.DevNull); err == nil {
			os.Stdin = null
		}
	})
}

// OperatorStdin is the process's original standard input, for the host's
// own prompts. Call it before or after New; it is stable.
func OperatorStdin() *os.File {
	detachStdin()
	return operatorStdin
}
