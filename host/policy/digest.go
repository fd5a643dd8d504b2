package policy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// digest hashes fields with a length prefix each, so that no two different
// field lists ("ab","c" and "a","bc") can share a fingerprint. The fields
// are gathered in one buffer and hashed once: writing each to a hash.Hash
// copied every string to the heap (an interface call takes a []byte).
type digest struct{ buf []byte }

func newDigest(domain string) *digest {
	d := &digest{buf: make([]byte, 0, 256)}
	d.add(domain)
	return d
}

func (d *digest) add(fields ...string) {
	for _, f := range fields {
		d.buf = binary.BigEndian.AppendUint64(d.buf, uint64(len(f)))
		d.buf = append(d.buf, f...)
	}
}

func (d *digest) hex() string {
	sum := sha256.Sum256(d.buf)
	return hex.EncodeToString(sum[:])
}
