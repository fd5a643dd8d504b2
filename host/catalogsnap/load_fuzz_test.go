package catalogsnap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad puts arbitrary bytes where a snapshot belongs. Load must never
// panic, and it may only hit when the bytes carry exactly the reader's key;
// then the sources it returns resolve or fail, never panic.
func FuzzLoad(f *testing.F) {
	fx := newFixture(f)
	fx.record()
	good, err := os.ReadFile(path(fx.state, fx.key()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"key":{"format":1},"sources":[{"kind":"mcp","tools":[{"name":"x"}]}]}`))
	f.Add([]byte(`[]`))
	key := fx.key()
	fixKey, err := readMACKey(fx.state)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		state := t.TempDir()
		p := path(state, key)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		// The fixture's key, so that the seed that is the good snapshot can hit.
		if err := os.MkdirAll(filepath.Dir(KeyFile(state)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(KeyFile(state), fixKey, 0o600); err != nil {
			t.Fatal(err)
		}
		s, ok := Load(state, key)
		if !ok {
			return
		}
		var probe struct {
			Key Key `json:"key"`
		}
		mkey, err := readMACKey(state)
		if err != nil {
			t.Fatalf("hit without a MAC key: %v", err)
		}
		body, sealed := open(mkey, data)
		if !sealed || json.Unmarshal(body, &probe) != nil || !probe.Key.Equal(key) {
			t.Fatalf("hit on bytes not sealed by the host or whose key is not the reader's: %q", data)
		}
		s.CatalogSources()
	})
}
