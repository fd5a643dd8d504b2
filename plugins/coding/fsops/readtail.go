package fsops

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// tailBlock is how much one backward step reads.
var tailBlock = 64 << 10

// fromEnd fills the window with the last n lines. It reads backwards from
// the end in blocks until it has seen n line starts, so the cost is the
// size of those lines, not of the file.
func (w *window) fromEnd(ctx context.Context, of *openedFile, n int) error {
	size := of.size
	if size == 0 {
		w.res.TotalLinesKnown = true
		return nil
	}
	var lastByte [1]byte
	if _, err := of.f.ReadAt(lastByte[:], size-1); err != nil {
		return fmt.Errorf("%s: read: %w", w.res.Path, err)
	}
	searchEnd := size // a final newline ends the last line; it does not start a new one
	if lastByte[0] == '\n' {
		searchEnd--
	}
	block := make([]byte, tailBlock)
	var scanned int64 // by the backward scan, for its budget
	found, start, earliest := 0, int64(-1), int64(-1)
	pos := searchEnd
	budgetHit := false
	for pos > 0 && start < 0 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if scanned >= w.lim.byteBudget {
			budgetHit = true
			break
		}
		chunk := min(int64(len(block)), pos, w.lim.byteBudget-scanned)
		from := pos - chunk
		if _, err := of.f.ReadAt(block[:chunk], from); err != nil && err != io.EOF {
			return fmt.Errorf("%s: read: %w", w.res.Path, err)
		}
		scanned += chunk
		b := block[:chunk]
		for {
			i := bytes.LastIndexByte(b, '\n')
			if i < 0 {
				break
			}
			found++
			earliest = from + int64(i)
			if found == n {
				start = earliest + 1
				break
			}
			b = b[:i]
		}
		pos = from
	}
	// linesToEnd is how many lines lie between start and the end of file.
	var linesToEnd int
	switch {
	case start >= 0 && pos == 0:
		// The last block read began the file: the lines before start are
		// still in it, so line numbers are known.
		linesToEnd = n
		before := bytes.Count(block[:start], []byte{'\n'})
		w.res.TotalLines, w.res.TotalLinesKnown = before+n, true
	case start >= 0:
		linesToEnd = n
	case !budgetHit: // reached the start of the file: it has fewer than n lines
		start, linesToEnd = 0, found+1
		w.res.TotalLines, w.res.TotalLinesKnown = linesToEnd, true
	case earliest >= 0:
		start, linesToEnd = earliest+1, found
	default: // one line longer than the budget: begin mid-line
		start, linesToEnd = pos, 1
	}
	if budgetHit {
		w.stop("byte_budget")
		w.res.Truncated = true
		w.res.Note = fmt.Sprintf("scanned only the last %d bytes, which hold %d of the %d lines asked for", scanned, linesToEnd, n)
		if earliest < 0 {
			w.res.Note += "; the first line returned starts mid-line"
		}
	}
	lr := newLineReader(io.NewSectionReader(of.f, start, size-start), w.lim.byteBudget)
	end, err := w.fill(ctx, lr)
	// Bytes examined: the backward scan and the forward window overlap.
	w.res.BytesScanned = size - min(start, pos)
	if err != nil {
		return err
	}
	if w.res.TotalLinesKnown && w.res.LinesReturned > 0 {
		w.res.StartLine = w.res.TotalLines - linesToEnd + 1
		w.res.EndLine = w.res.StartLine + w.res.LinesReturned - 1
	}
	if end == endBinary {
		w.res.Note = joinNote(w.res.Note, fmt.Sprintf("line %d of this window holds bytes that are not text (NUL); it is not shown, and the window stops before it", w.binaryAt))
	}
	left := linesToEnd - w.res.LinesReturned
	if end == endLimit && left <= 0 {
		w.res.StoppedBy = removeReason(w.res.StoppedBy, "limit")
	}
	if left > 0 {
		w.res.Truncated = true
		w.res.NextOffset = -left
	}
	return nil
}

func removeReason(rs []string, r string) []string {
	out := rs[:0]
	for _, x := range rs {
		if x != r {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
