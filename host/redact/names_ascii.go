package redact

import "sync"

// maxASCIIWord bounds one word on the ASCII path; a longer word takes the
// general path.
const maxASCIIWord = 64

// secretPairKeys is secretPairs as "first second" strings, so that the ASCII
// path can look a pair up from a byte buffer without allocating.
var secretPairKeys = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, len(secretPairs))
	for p := range secretPairs {
		m[p[0]+" "+p[1]] = true
	}
	return m
})

// isSecretNameASCII is isSecretNameWords for names of ASCII bytes with
// words of at most maxASCIIWord bytes, without allocating: it splits words
// exactly as splitWords does and judges each as it ends. ok is false when
// the name is outside that set and the general path must decide.
func isSecretNameASCII(name string) (secret, ok bool) {
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return false, false
		}
	}
	var cur, prev [maxASCIIWord]byte
	var pair [2*maxASCIIWord + 1]byte
	nc, np := 0, 0
	found := false
	// end judges the word in cur; stop means a metadata word decided it.
	end := func() (stop bool) {
		if nc == 0 {
			return false
		}
		w := cur[:nc]
		if metadataWords[string(w)] {
			return true
		}
		hit := secretWords[string(w)]
		if !hit && np > 0 {
			n := copy(pair[:], prev[:np])
			pair[n] = ' '
			n += 1 + copy(pair[n+1:], w)
			hit = secretPairKeys()[string(pair[:n])]
		}
		if !hit {
			for _, suf := range secretSuffixes {
				if len(w) > len(suf) && string(w[len(w)-len(suf):]) == suf {
					hit = true
				}
			}
		}
		found = found || hit
		np = copy(prev[:], w)
		nc = 0
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isASCIIAlnum(c) {
			if end() {
				return false, true
			}
			continue
		}
		if isASCIIUpper(c) && nc > 0 {
			p := name[i-1]
			nextLower := i+1 < len(name) && isASCIILower(name[i+1])
			// fooBar -> foo|Bar ; APIKey -> API|Key
			if isASCIILower(p) || isASCIIDigit(p) || (isASCIIUpper(p) && nextLower) {
				if end() {
					return false, true
				}
			}
		}
		if nc == maxASCIIWord {
			return false, false
		}
		if isASCIIUpper(c) {
			c += 'a' - 'A'
		}
		cur[nc] = c
		nc++
	}
	if end() {
		return false, true
	}
	return found, true
}

func isASCIIUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isASCIILower(c byte) bool { return 'a' <= c && c <= 'z' }
func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }
func isASCIIAlnum(c byte) bool { return isASCIIUpper(c) || isASCIILower(c) || isASCIIDigit(c) }
