package providers

import (
	"encoding/json"
	"sync"
)

// maxEncodedTools bounds a provider's kept tool encodings; past it they
// are dropped and encoded again (a core's tools change rarely, so this is
// reached only by a long-lived provider seeing many catalogs).
const maxEncodedTools = 1024

// toolKey is a tool definition as the provider received it: the same key
// is the same request JSON.
type toolKey struct{ name, description, schema string }

// encodedTools keeps the SDK's request value of each tool definition with
// its JSON encoded once: the request of every model step repeats the
// whole tool list, and the SDK encoding the schema maps by reflection at
// every step cost a large share of the host's time per step (BENCHMARKS
// §18.2). The kept value is the SDK's own encoding of the same
// definition (the bytes sent do not change), held as an override the SDK
// writes out as it is. Safe for concurrent use.
type encodedTools[T any] struct {
	mu    sync.Mutex
	byKey map[toolKey]T
}

// get returns the kept value of t, or builds it with encode and keeps it.
func (c *encodedTools[T]) get(t ToolDef, encode func(ToolDef) T) T {
	k := toolKey{t.Name, t.Description, string(t.Schema)}
	c.mu.Lock()
	v, ok := c.byKey[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = encode(t)
	c.mu.Lock()
	if c.byKey == nil || len(c.byKey) >= maxEncodedTools {
		c.byKey = map[toolKey]T{}
	}
	c.byKey[k] = v
	c.mu.Unlock()
	return v
}

// preEncoded is v's JSON as the SDK encodes it, or false when it does not
// encode (the caller then sends v itself, and the SDK reports the error).
func preEncoded(v json.Marshaler) (json.RawMessage, bool) {
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, false
	}
	return b, true
}
