package redact

import (
	"bytes"
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
