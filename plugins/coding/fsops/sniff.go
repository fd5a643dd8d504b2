package fsops

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file decides whether it is text.
const sniffLen = 8 << 10

// looksBinary reports whether head (the first bytes of a file) is binary:
// a NUL byte, or mostly bytes that are not valid UTF-8. A few invalid
// bytes (Latin-1 in a comment) still make a text file; those are shown as
// U+FFFD. full says head is the whole file, so a rune cut at its end is
// invalid rather than truncated by the sample.
func looksBinary(head []byte, full bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	invalid := 0
	for i := 0; i < len(head); {
		if head[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			if !full && !utf8.FullRune(head[i:]) {
				break // the sample cut a rune in two
			}
			invalid++
		}
		i += size
	}
	// "Dominant": random bytes are about half invalid, text in a legacy
	// single-byte encoding a few percent.
	return invalid*4 > len(head)
}

// sniff reads the head of r (at offset 0) and reports whether it is binary
// and its detected content type. A size of 0 is not trusted (procfs and
// sysfs files report 0 and have content): the head is read all the same.
func sniff(r io.ReaderAt, size int64) (binary bool, mime string, err error) {
	n := int64(sniffLen)
	if size > 0 && size < n {
		n = size
	}
	head := make([]byte, n)
	got, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return false, "", err
	}
	head = head[:got]
	full := int64(got) >= size && (size > 0 || got < sniffLen)
	binary = looksBinary(head, full)
	mime = http.DetectContentType(head)
	if binary && strings.HasPrefix(mime, "text/") {
		mime = "application/octet-stream" // no signature; the sniffer's text guess is wrong here
	}
	return binary, mime, nil
}

// sizeUnknown reports whether a file whose stat size is 0 has content
// all the same, as procfs files do: its real size is not known.
func sizeUnknown(r io.ReaderAt, size int64) bool {
	if size != 0 {
		return false
	}
	var b [1]byte
	n, _ := r.ReadAt(b[:], 0)
	return n == 1
}
