package policy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// TestDigestIsTheLengthPrefixedHash pins the fingerprint's bytes: SHA-256
// of each field as an 8-byte big-endian length and the field, in order.
// Approvals remembered by fingerprint must survive a change of how the
// digest is computed, so the value itself is checked, not only that two
// lists differ.
func TestDigestIsTheLengthPrefixedHash(t *testing.T) {
	want := func(fields ...string) string {
		h := sha256.New()
		var n [8]byte
		for _, f := range fields {
			binary.BigEndian.PutUint64(n[:], uint64(len(f)))
			h.Write(n[:])
			h.Write([]byte(f))
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	for _, fields := range [][]string{
		{"demiurge.call.v1"},
		{"demiurge.call.v1", "path", "path", "read", "/w/a.txt", "/w/a.txt"},
		{"d", "", "", ""},
		{"d", strings.Repeat("x", 1000), "é\x00"},
	} {
		d := newDigest(fields[0])
		for _, f := range fields[1:] {
			d.add(f)
		}
		if got := d.hex(); got != want(fields...) {
			t.Errorf("digest of %q = %s, want %s", fields, got, want(fields...))
		}
	}
	a, b := newDigest("d"), newDigest("d")
	a.add("ab", "c")
	b.add("a", "bc")
	if a.hex() == b.hex() {
		t.Error(`("ab","c") and ("a","bc") share a fingerprint`)
	}
	// A known value: a change here changes every remembered approval.
	if got := newDigest("demiurge.call.v1").hex(); got != want("demiurge.call.v1") || len(got) != 64 {
		t.Errorf("digest of the domain alone = %s", got)
	}
}
