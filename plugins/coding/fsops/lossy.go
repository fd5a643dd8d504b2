package fsops

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// checkLossyRewrite refuses a write of content with U+FFFD over a file
// (the one the pinned parent names) that is not valid UTF-8, reading the
// file through the checked descriptor. Content without U+FFFD, or a file
// that is valid UTF-8 (or absent), passes unread.
func (pp *pinnedParent) checkLossyRewrite(p, content string, exists bool) error {
	if !exists || !strings.ContainsRune(content, utf8.RuneError) {
		return nil
	}
	src, _, err := pp.openSource(p)
	if err != nil {
		return err
	}
	defer src.Close()
	valid, err := validUTF8(src)
	if err != nil {
		return fmt.Errorf("%s: read: %w", p, err)
	}
	if !valid {
		return refuse(p, ErrLossyRewrite, "the file holds bytes that are not valid UTF-8 (read_file shows them as U+FFFD) and this content has U+FFFD: writing it would replace those bytes for good, so nothing was written. Use patch to change the parts that need it (it keeps every other byte), or write content without U+FFFD")
	}
	return nil
}

// validUTF8 reports whether r's bytes are valid UTF-8, reading in chunks
// and carrying an incomplete sequence across a chunk's end.
func validUTF8(r io.Reader) (bool, error) {
	buf := make([]byte, 64<<10)
	carry := 0
	for {
		n, err := r.Read(buf[carry:])
		data := buf[:carry+n]
		// Hold back a sequence the read may have cut: at most the last
		// utf8.UTFMax-1 bytes, from the last rune start among them.
		keep := 0
		if err == nil {
			for i := len(data) - 1; i >= 0 && i >= len(data)-(utf8.UTFMax-1); i-- {
				if utf8.RuneStart(data[i]) {
					if !utf8.FullRune(data[i:]) {
						keep = len(data) - i
					}
					break
				}
			}
		}
		if !utf8.Valid(data[:len(data)-keep]) {
			return false, nil
		}
		carry = copy(buf, data[len(data)-keep:])
		if err == io.EOF {
			return true, nil // the last read held back nothing: keep is 0 at EOF
		}
		if err != nil {
			return false, err
		}
	}
}
