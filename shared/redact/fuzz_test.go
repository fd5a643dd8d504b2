package redact

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzWriter checks that streaming in arbitrary chunks gives exactly what
// RedactString gives for the whole input.
func FuzzWriter(f *testing.F) {
	f.Add("key=s3cr3t and s3cr3t", "s3cr3t", "cr3t and", []byte{3, 1, 7})
	f.Add("abcdefghabcd", "abcd", "abcdefgh", []byte{1, 1, 1, 1})
	f.Add("aaaaaaaaaa", "aaaa", "aaaaaaa", []byte{2})
	f.Add("no secret", "", "xyz", []byte{})
	f.Add("\xff\xfeSECRET\xff", "\xfeSEC", "SECRET\xff", []byte{5, 0, 2})
	f.Fuzz(func(t *testing.T, in, s1, s2 string, chunks []byte) {
		secrets := map[string]string{"ONE": s1, "TWO": s2}
		want := RedactString(in, secrets)
		var out bytes.Buffer
		w := NewWriter(&out, secrets)
		data := []byte(in)
		for i := 0; len(data) > 0; i++ {
			n := len(data)
			if len(chunks) > 0 {
				n = int(chunks[i%len(chunks)]) % (len(data) + 1)
			}
			if n == 0 { // an empty write must change nothing; then move on
				if _, err := w.Write(nil); err != nil {
					t.Fatal(err)
				}
				n = 1
			}
			if _, err := w.Write(data[:n]); err != nil {
				t.Fatal(err)
			}
			data = data[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("chunked %q, whole %q", out.String(), want)
		}
	})
}

// naiveRedact is the specification of Replacer.String without its
// indexes: from left to right, at each position the longest secret that
// starts there is replaced.
func naiveRedact(in string, secrets []Secret) string {
	var b strings.Builder
	for i := 0; i < len(in); {
		best := Secret{}
		for _, s := range secrets {
			if len(s.Value) < MinSecretLen || !strings.HasPrefix(in[i:], s.Value) {
				continue
			}
			if len(s.Value) > len(best.Value) || len(s.Value) == len(best.Value) && s.Target < best.Target {
				best = s
			}
		}
		if best.Value == "" {
			b.WriteByte(in[i])
			i++
			continue
		}
		b.WriteString(Marker(best.Target))
		i += len(best.Value)
	}
	return b.String()
}

// FuzzReplacerMatchesNaive checks the compiled Replacer (first-byte
// buckets, pair filter) against the naive scan: a filter collision may
// only cost time, never miss a secret.
func FuzzReplacerMatchesNaive(f *testing.F) {
	f.Add("AB @\xc2XYZ AB", "@\xc2XYZ", "ABCD", "AB\x00\x00")
	f.Add("key=s3cr3t and s3cr3t", "s3cr3t", "cr3t and", "")
	f.Add("abcdefghabcd", "abcd", "abcdefgh", "bcde")
	f.Add("\xff\xfeSECRET\xff", "\xfeSEC", "SECRET\xff", "\x7f\x7eSE")
	f.Add("aaaaaaaaaa", "aaaa", "aaaaaaa", "aaaaa")
	f.Fuzz(func(t *testing.T, in, s1, s2, s3 string) {
		secrets := []Secret{{Target: "ONE", Value: s1}, {Target: "TWO", Value: s2}, {Target: "THREE", Value: s3}}
		if got, want := NewReplacer(secrets).String(in), naiveRedact(in, secrets); got != want {
			t.Fatalf("Replacer %q, naive %q", got, want)
		}
	})
}
