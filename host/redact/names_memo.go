package redact

import (
	"sync"
	"sync/atomic"
)

// Every key of every argument and structured result is judged by
// isSecretName, and a tool's results carry the same few keys on every call
// (read_file's eleven), so the answers are remembered. The answer is a
// function of the name alone. The memory is bounded: only names of at most
// nameMemoKeyMax bytes, and past nameMemoMax names nothing more is added
// (keys come from tool output, which anyone may shape).
const (
	nameMemoMax    = 4096
	nameMemoKeyMax = 64
)

var (
	nameMemo  sync.Map // name → bool (is a secret name)
	nameCount atomic.Int64
)

// isSecretName reports whether a field, option, query parameter or header
// name says its value is a credential.
func isSecretName(name string) bool {
	if v, ok := nameMemo.Load(name); ok {
		return v.(bool)
	}
	secret := judgeSecretName(name)
	if len(name) <= nameMemoKeyMax && nameCount.Load() < nameMemoMax {
		if _, loaded := nameMemo.LoadOrStore(name, secret); !loaded {
			nameCount.Add(1)
		}
	}
	return secret
}
