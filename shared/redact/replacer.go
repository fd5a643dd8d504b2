package redact

import "sort"

// MinSecretLen is the shortest value that is treated as a secret; see the
// package comment for why shorter values are ignored.
const MinSecretLen = 4

// Secret is one exact value to replace and the target named in its marker.
type Secret struct {
	Target string
	Value  string
}

// Replacer is a compiled, immutable set of secrets. It is safe for
// concurrent use. The host builds one for every call that has secrets, so
// it is small and cheap to build.
type Replacer struct {
	// pairs is a filter over the first two bytes of every secret: a
	// position whose two bytes map to a clear bit cannot start one, which
	// rules out almost every position of ordinary text with one lookup.
	// Two pairs may share a bit; that only sends a position on to the
	// exact check.
	pairs [1 << pairBits / 64]uint64
	// first holds, for each byte, 1 + the index in buckets of the secrets
	// starting with it, 0 for none. Each bucket lists its secrets longest
	// first, so the first full match found is the longest one.
	first   [256]uint16
	buckets [][]entry
	maxLen  int
}

// pairBits sizes the pair filter: 32768 bits keep it at 4 KiB, half the
// exact index of every two-byte pair, so a Replacer is cheap to build.
const pairBits = 15

// pairSlot maps two bytes to a bit of the pair filter. The bytes overlap
// in one bit only: two pairs share a bit only when the first bytes differ
// in their lowest bit and the second bytes in their highest, so for ASCII
// text the filter is exact, and it costs what the exact index costs.
func pairSlot(a, b byte) uint {
	return uint(a)<<(pairBits-8) ^ uint(b)
}

type entry struct {
	value  string
	marker string
}

// Marker is the text that replaces a secret bound to target.
func Marker(target string) string { return "<redacted:" + target + ">" }

// NewReplacer compiles secrets. Empty and too-short values are dropped. When
// one value is given under several targets, the smallest target name wins so
// the result does not depend on input order.
func NewReplacer(secrets []Secret) *Replacer {
	list := make([]Secret, 0, len(secrets))
	for _, s := range secrets {
		if len(s.Value) >= MinSecretLen {
			list = append(list, s)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if len(a.Value) != len(b.Value) {
			return len(a.Value) > len(b.Value)
		}
		if a.Value != b.Value {
			return a.Value < b.Value
		}
		return a.Target < b.Target
	})
	r := &Replacer{}
	for i, s := range list {
		if i > 0 && list[i-1].Value == s.Value {
			continue
		}
		c := s.Value[0]
		if r.first[c] == 0 {
			r.buckets = append(r.buckets, nil)
			r.first[c] = uint16(len(r.buckets))
		}
		k := r.first[c] - 1
		r.buckets[k] = append(r.buckets[k], entry{value: s.Value, marker: Marker(s.Target)})
		slot := pairSlot(c, s.Value[1]) // every value has MinSecretLen >= 2 bytes
		r.pairs[slot/64] |= 1 << (slot % 64)
		if len(s.Value) > r.maxLen {
			r.maxLen = len(s.Value)
		}
	}
	return r
}

// FromMap compiles a target -> value map.
func FromMap(secrets map[string]string) *Replacer {
	list := make([]Secret, 0, len(secrets))
	for target, value := range secrets {
		list = append(list, Secret{Target: target, Value: value})
	}
	return NewReplacer(list)
}

// Empty reports whether the replacer has no secret to replace.
func (r *Replacer) Empty() bool { return r.maxLen == 0 }

// MaxLen is the length of the longest secret; a stream holds back at most
// MaxLen-1 bytes.
func (r *Replacer) MaxLen() int { return r.maxLen }

// String returns s with every secret replaced, scanning left to right and
// taking the longest secret that matches at each position.
func (r *Replacer) String(s string) string {
	if r.Empty() {
		return s
	}
	out := make([]byte, 0, len(s))
	replaced := false
	r.scan([]byte(s), true, func(lit []byte, marker string) {
		out = append(out, lit...)
		if marker != "" {
			out = append(out, marker...)
			replaced = true
		}
	})
	if !replaced {
		return s
	}
	return string(out)
}

// scan walks b and calls emit with runs of literal bytes, each followed by
// the marker of the secret that ends the run ("" when no secret ends it). It
// returns how many bytes it consumed; the rest is held back because a secret
// may start there and continue in bytes not yet seen. With final set the
// input is complete and everything is consumed.
func (r *Replacer) scan(b []byte, final bool, emit func(lit []byte, marker string)) int {
	start := 0 // start of the pending literal run
	i := 0
	for i < len(b) {
		i = r.skip(b, i)
		bucket := r.first[b[i]]
		if bucket == 0 {
			i++
			continue
		}
		cands := r.buckets[bucket-1]
		rest := b[i:]
		matched, undecided := -1, false
		for k, e := range cands { // longest first
			if len(rest) >= len(e.value) {
				if string(rest[:len(e.value)]) == e.value {
					matched = k
					break
				}
				continue
			}
			// The input ends inside this candidate: it, a longer secret
			// than any shorter match, may still match once more bytes come.
			if !final && string(rest) == e.value[:len(rest)] {
				undecided = true
				break
			}
		}
		if undecided {
			if i > start {
				emit(b[start:i], "")
			}
			return i
		}
		if matched < 0 {
			i++
			continue
		}
		e := cands[matched]
		emit(b[start:i], e.marker)
		i += len(e.value)
		start = i
	}
	if i > start {
		emit(b[start:i], "")
	}
	return i
}

// skip returns the first position from i on where a secret may start:
// one whose two bytes pass the pair filter, or the last byte, which has no
// pair yet and takes the slow path.
func (r *Replacer) skip(b []byte, i int) int {
	for ; i+1 < len(b); i++ {
		slot := pairSlot(b[i], b[i+1])
		if r.pairs[slot>>6]&(1<<(slot&63)) != 0 {
			return i
		}
	}
	return i
}

// RedactString returns s with every value of secrets (target -> value)
// replaced by <redacted:TARGET>.
func RedactString(s string, secrets map[string]string) string {
	return FromMap(secrets).String(s)
}

// Contains reports whether s holds any secret, without copying it.
func (r *Replacer) Contains(s string) bool {
	if r.Empty() {
		return false
	}
	for i := 0; i+1 < len(s); i++ {
		slot := pairSlot(s[i], s[i+1])
		if r.pairs[slot>>6]&(1<<(slot&63)) == 0 {
			continue
		}
		bucket := r.first[s[i]]
		if bucket == 0 {
			continue
		}
		for _, e := range r.buckets[bucket-1] {
			if len(s)-i >= len(e.value) && s[i:i+len(e.value)] == e.value {
				return true
			}
		}
	}
	return false
}
