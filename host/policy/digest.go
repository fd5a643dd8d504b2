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

func (d *digest) add(fields ...string) { d.buf = appendFields(d.buf, fields...) }

func (d *digest) hex() string { return digestHex(d.buf) }

// appendFields appends fields to a digest's bytes as digest.add does. A
// caller that keeps the bytes in a variable of its own (Assess) can keep
// them on the stack: a store through a *digest moves them to the heap.
func appendFields(b []byte, fields ...string) []byte {
	for _, f := range fields {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// digestHex is the fingerprint of a digest's bytes in hex, encoded on the
// stack: one allocation (the string), not hex.EncodeToString's two.
func digestHex(b []byte) string {
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}
