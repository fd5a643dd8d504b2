package policy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// digest hashes fields with a length prefix each, so that no two different
// field lists ("ab","c" and "a","bc") can share a fingerprint.
type digest struct{ h hash.Hash }

func newDigest(domain string) *digest {
	d := &digest{h: sha256.New()}
	d.add(domain)
	return d
}

func (d *digest) add(fields ...string) {
	var n [8]byte
	for _, f := range fields {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		d.h.Write(n[:])
		d.h.Write([]byte(f))
	}
}

func (d *digest) hex() string { return hex.EncodeToString(d.h.Sum(nil)) }
