package fsops

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errByteBudget stops a scan that would read past its byte budget.
var errByteBudget = errors.New("byte budget exhausted")

// lineReader yields lines from a stream while holding at most one buffer
// and the kept prefix of the current line, however long the line is.
type lineReader struct {
	br      *bufio.Reader
	scanned int64 // bytes consumed from the stream
	budget  int64 // scanned may not exceed this
}

func newLineReader(r io.Reader, budget int64) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), budget: budget}
}

// next reads one line. It appends at most keep bytes of it to dst[:0] and
// returns them, the line's full length in bytes and whether it ended with
// a newline. io.EOF means there was no further line; errByteBudget that
// the budget ran out inside the line.
func (lr *lineReader) next(dst []byte, keep int) (kept []byte, length int64, newline bool, err error) {
	kept = dst[:0]
	for {
		if lr.scanned >= lr.budget {
			return kept, length, false, errByteBudget
		}
		s, err := lr.br.ReadSlice('\n')
		if rest := lr.budget - lr.scanned; int64(len(s)) > rest {
			s = s[:rest] // the bytes past the budget were read, not scanned
			err = errByteBudget
		}
		lr.scanned += int64(len(s))
		length += int64(len(s))
		if room := keep - len(kept); room > 0 {
			kept = append(kept, s[:min(room, len(s))]...)
		}
		switch {
		case err == nil:
			return kept, length, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if length == 0 {
				return kept, 0, false, io.EOF
			}
			return kept, length, false, nil
		default:
			return kept, length, false, err
		}
	}
}

// countRest counts the lines left in the stream, scanning at most limit
// more bytes. known is false when the limit stopped it first.
func (lr *lineReader) countRest(limit int64) (lines int, known bool, err error) {
	buf := make([]byte, 64<<10)
	var last byte = '\n'
	for extra := int64(0); ; {
		if extra >= limit {
			return lines, false, nil
		}
		n, err := lr.br.Read(buf[:min(int64(len(buf)), limit-extra)])
		lr.scanned += int64(n)
		extra += int64(n)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		if n > 0 {
			last = buf[n-1]
		}
		if errors.Is(err, io.EOF) {
			if last != '\n' {
				lines++ // a last line without a newline
			}
			return lines, true, nil
		}
		if err != nil {
			return lines, false, err
		}
	}
}
