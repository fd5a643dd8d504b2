package redact

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

var redactCases = []struct {
	name    string
	in      string
	secrets map[string]string
	want    string
}{
	{"none", "nothing here", map[string]string{"K": "s3cr3t"}, "nothing here"},
	{"one", "key=s3cr3t;", map[string]string{"K": "s3cr3t"}, "key=<redacted:K>;"},
	{"repeated and adjacent", "s3cr3ts3cr3t x s3cr3t", map[string]string{"K": "s3cr3t"},
		"<redacted:K><redacted:K> x <redacted:K>"},
	{"at both ends", "s3cr3t mid s3cr3t", map[string]string{"K": "s3cr3t"}, "<redacted:K> mid <redacted:K>"},
	{"two secrets", "u=alice-token p=hunter22", map[string]string{"T": "alice-token", "P": "hunter22"},
		"u=<redacted:T> p=<redacted:P>"},
	{"longest first", "abcdefgh abcdX", map[string]string{"SHORT": "abcd", "LONG": "abcdefgh"},
		"<redacted:LONG> <redacted:SHORT>X"},
	{"longer one fails late", "abcdefgX", map[string]string{"SHORT": "abcd", "LONG": "abcdefgh"},
		"<redacted:SHORT>efgX"},
	{"overlap leftmost wins", "abcdefghi", map[string]string{"A": "abcdef", "B": "defghi"}, "<redacted:A>ghi"},
	{"prefix at end stays", "xyzabc", map[string]string{"K": "abcd"}, "xyzabc"},
	{"short value ignored", "pin 123 and abc", map[string]string{"PIN": "123", "X": "abc"}, "pin 123 and abc"},
	{"empty value ignored", "text", map[string]string{"E": ""}, "text"},
	{"four bytes is enough", "code 1234", map[string]string{"C": "1234"}, "code <redacted:C>"},
	{"same value two targets", "v=tok-en-1", map[string]string{"B": "tok-en-1", "A": "tok-en-1"}, "v=<redacted:A>"},
	{"multibyte", "密码是秘密值吗", map[string]string{"K": "秘密值"}, "密码是<redacted:K>吗"},
	{"binary bytes", "\x00\xffSECRET\xff", map[string]string{"K": "\xffSECRET"}, "\x00<redacted:K>\xff"},
	{"self overlapping", "aaaaaaaaa", map[string]string{"K": "aaaa"}, "<redacted:K><redacted:K>a"},
	{"no secrets", "plain", nil, "plain"},
	// "AB" and "@\xc2" share a bit of the pair filter: the filter only
	// sends a position on, the exact check decides.
	{"pair filter collision", "AB @\xc2XYZ AB", map[string]string{"K": "@\xc2XYZ"}, "AB <redacted:K> AB"},
	{"colliding secrets", "@\xc2XYZ ABCD", map[string]string{"K": "@\xc2XYZ", "L": "ABCD"}, "<redacted:K> <redacted:L>"},
	{"many first bytes", "a1b2c3d4 e5f6", map[string]string{"A": "a1b2", "C": "c3d4", "E": "e5f6", "X": "x9y9"},
		"<redacted:A><redacted:C> <redacted:E>"},
}

func TestRedactString(t *testing.T) {
	for _, tc := range redactCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := RedactString(tc.in, tc.secrets); got != tc.want {
				t.Fatalf("RedactString(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// writeChunks streams in through a Writer split at the given offsets.
func writeChunks(t *testing.T, in string, secrets map[string]string, cuts ...int) string {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out, secrets)
	prev := 0
	for _, c := range append(cuts, len(in)) {
		n, err := w.Write([]byte(in[prev:c]))
		if err != nil || n != c-prev {
			t.Fatalf("Write = %d, %v; want %d, nil", n, err, c-prev)
		}
		prev = c
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestWriterSplitAtEveryOffset(t *testing.T) {
	for _, tc := range redactCases {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i <= len(tc.in); i++ {
				if got := writeChunks(t, tc.in, tc.secrets, i); got != tc.want {
					t.Fatalf("split at %d: %q, want %q", i, got, tc.want)
				}
				for j := i; j <= len(tc.in); j++ {
					if got := writeChunks(t, tc.in, tc.secrets, i, j); got != tc.want {
						t.Fatalf("split at %d,%d: %q, want %q", i, j, got, tc.want)
					}
				}
			}
			cuts := make([]int, 0, len(tc.in))
			for i := 1; i < len(tc.in); i++ {
				cuts = append(cuts, i)
			}
			if got := writeChunks(t, tc.in, tc.secrets, cuts...); got != tc.want {
				t.Fatalf("byte by byte: %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWriterHoldsBackLessThanLongestSecret(t *testing.T) {
	secrets := map[string]string{"S": "abcd", "L": "abcdefgh"}
	var out bytes.Buffer
	w := NewWriter(&out, secrets)
	written := 0
	for _, chunk := range []string{"xx", "abcdefg", "Xabcdefgh", "ab", "zzzzzzzzzzzz", "abcdefg"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
		written += len(chunk)
		held := len(w.pending)
		if held > 7 {
			t.Fatalf("after %q holding %d bytes, more than len(longest)-1 = 7", chunk, held)
		}
	}
	if !strings.HasSuffix(out.String(), "zzzz") {
		t.Fatalf("undecided bytes only: output so far %q should end with the z run", out.String())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "xx<redacted:S>efgX<redacted:L>abzzzzzzzzzzzz<redacted:S>efg"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

func TestWriterErrors(t *testing.T) {
	secrets := map[string]string{"K": "s3cr3t"}

	w := NewWriter(&bytes.Buffer{}, secrets)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v, want ErrClosed", err)
	}
	if err := w.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("flush after close: %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}

	fw := NewWriter(&failingWriter{n: 1}, secrets)
	if _, err := fw.Write([]byte("first line\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write([]byte("second line\n")); err == nil {
		t.Fatal("dst failure not reported")
	}
	if _, err := fw.Write([]byte("third\n")); err == nil {
		t.Fatal("dst failure not sticky")
	}

	sw := NewWriter(shortWriter{}, nil)
	if _, err := sw.Write([]byte("abcdef")); !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("short write: %v", err)
	}
}

// Contains answers as String does: true exactly when String would replace.
func TestContainsAgreesWithString(t *testing.T) {
	for _, c := range redactCases {
		r := FromMap(c.secrets)
		if got, want := r.Contains(c.in), r.String(c.in) != c.in; got != want {
			t.Errorf("%s: Contains(%q) = %v, String replaced: %v", c.name, c.in, got, want)
		}
	}
	r := FromMap(map[string]string{"K": "tail"})
	for s, want := range map[string]bool{"tail": true, "xtail": true, "xtai": false, "": false, "t": false} {
		if r.Contains(s) != want {
			t.Errorf("Contains(%q) = %v, want %v", s, !want, want)
		}
	}
}
