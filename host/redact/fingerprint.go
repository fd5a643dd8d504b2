package redact

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// fingerprintKey keys the debug fingerprints. A plain sha256 of a short
// password can be reversed by trying candidates; keyed with a random
// per-process key it cannot, while equal values still share a fingerprint
// within one host run, which is what debugging needs. Made on first use.
var fingerprintKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	rand.Read(k) // never fails on supported platforms (crypto/rand panics otherwise)
	return k
})

// fingerprint is a one-way, keyed sha256 of a secret value.
func fingerprint(value string) string {
	m := hmac.New(sha256.New, fingerprintKey())
	m.Write([]byte(value))
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil)[:12])
}

// fingerprints lists where each secret came from and its fingerprint.
func (r *redactor) fingerprints(secrets []Secret) []map[string]string {
	out := make([]map[string]string, 0, len(secrets))
	for _, s := range secrets {
		out = append(out, map[string]string{
			"source":      r.text(s.Source),
			"target":      r.text(s.Target),
			"fingerprint": fingerprint(s.Value),
		})
	}
	return out
}
