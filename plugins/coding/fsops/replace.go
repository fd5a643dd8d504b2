package fsops

import (
	"bufio"
	"bytes"
	"context"
	"io"
)

// patchChunk is how much of the source one step holds. A variable so that
// tests can shrink it and put matches across chunk boundaries; the stream
// itself takes the size as an argument.
var patchChunk = 256 << 10

// replaceStats is what one streaming pass learned.
type replaceStats struct {
	matches  int // non-overlapping occurrences: what replace_all replaces
	starts   int // every offset old starts at, overlapping ones too
	bytesIn  int64
	bytesOut int64
	ex       excerptCapture
}

// replaceStream copies src to dst, replacing old with repl: every
// occurrence when all is set, otherwise only the first. It always counts
// every non-overlapping occurrence, and every offset old starts at
// (overlapping ones too: "}\n}\n" starts twice in "}\n}\n}\n"), since the
// counts decide whether the edit may be published. It holds one chunk plus
// the last len(old)-1 bytes read, so a match split across two reads is
// still found and counted once.
func replaceStream(ctx context.Context, src io.Reader, dst io.Writer, old, repl []byte, all bool, chunk int) (replaceStats, error) {
	var st replaceStats
	k := len(old)
	buf := make([]byte, k-1+chunk)
	bw := bufio.NewWriterSize(dst, 64<<10)
	var werr error
	emit := func(b []byte) {
		if werr == nil && len(b) > 0 {
			var n int
			n, werr = bw.Write(b)
			st.bytesOut += int64(n)
		}
	}
	plain := func(b []byte) {
		st.ex.observe(b)
		emit(b)
	}
	carry := 0
	from := 0 // the carried bytes before from were emitted already
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		n, rerr := io.ReadFull(src, buf[carry:carry+chunk])
		st.bytesIn += int64(n)
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			return st, rerr
		}
		data := buf[:carry+n]
		// Every start: the carried bytes are the last k-1 of the previous
		// data, where no occurrence was complete, so none is counted twice.
		for p := 0; ; {
			j := bytes.Index(data[p:], old)
			if j < 0 {
				break
			}
			st.starts++
			p += j + 1
		}
		i := from
		for {
			j := bytes.Index(data[i:], old)
			if j < 0 {
				break
			}
			j += i
			plain(data[i:j])
			st.matches++
			if st.matches == 1 {
				st.ex.atFirstMatch()
			} else {
				st.ex.observe(old)
			}
			if all || st.matches == 1 {
				emit(repl)
			} else {
				emit(old)
			}
			i = j + k
		}
		if eof {
			plain(data[i:])
			break
		}
		// Keep the tail that could be the start of a match split by the
		// read; what of it a match already consumed is not emitted again.
		keep := max(len(data)-(k-1), 0)
		safe := max(keep, i)
		plain(data[i:safe])
		from = safe - keep
		carry = copy(buf, data[keep:])
	}
	if werr == nil {
		werr = bw.Flush()
	}
	return st, werr
}
