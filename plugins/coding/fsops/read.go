package fsops

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ReadParams are the arguments of read_file.
type ReadParams struct {
	Path   string `json:"path" jsonschema_description:"File to read, relative to the workspace."`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=-2147483647,maximum=2147483647" jsonschema_description:"First line to return, 1-based (default 1). A negative value -N returns the last N lines."`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=10000" jsonschema_description:"Maximum number of lines to return (default 2000, at most 10000)."`
}

// ReadResult is a window of lines, or for a binary file a short
// description instead of its bytes.
type ReadResult struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// StartLine and EndLine number the returned lines (1-based); both are 0
	// when a read from the end did not reach the start of the file, so
	// absolute line numbers are unknown.
	StartLine     int `json:"start_line"`
	EndLine       int `json:"end_line"`
	LinesReturned int `json:"lines_returned"`
	// TotalLines is set only when the whole file was scanned.
	TotalLines      int   `json:"total_lines,omitempty"`
	TotalLinesKnown bool  `json:"total_lines_known"`
	BytesScanned    int64 `json:"bytes_scanned"`
	FileSize        int64 `json:"file_size"`
	// Truncated says lines remain that were not returned; StoppedBy names
	// the bounds that ended the window: "limit", "char_budget", "byte_budget",
	// or "binary_data" (a line of the window holds a NUL byte: it and the
	// lines after it are not shown).
	Truncated  bool     `json:"truncated"`
	StoppedBy  []string `json:"stopped_by,omitempty"`
	NextOffset int      `json:"next_offset,omitempty"` // offset that continues after this window
	LinesCut   int      `json:"lines_cut,omitempty"`   // long lines shortened with a marker
	// InvalidUTF8Lines counts returned lines whose bytes were not valid
	// UTF-8; each run of such bytes is shown as one U+FFFD.
	InvalidUTF8Lines int `json:"invalid_utf8_lines,omitempty"`
	// SHA256 is the sha256 of the whole file as this read scanned it,
	// set when the scan reached the end of a file of at most 8 MiB
	// (readLimits.hashMax) from its start: what
	// write_file's expected_sha256 binds a later write to, so that a change
	// made after this read is not overwritten. Empty when the read stopped
	// before the end (a budget, a NUL, read from the end).
	SHA256 string `json:"sha256,omitempty"`
	// SizeUnknown says the file has content though stat reports its size
	// as 0 (procfs, sysfs): FileSize is not its size.
	SizeUnknown bool   `json:"size_unknown,omitempty"`
	Binary      bool   `json:"binary,omitempty"`
	MimeType    string `json:"mime_type,omitempty"`
	Note        string `json:"note,omitempty"`
}

// readLimits are the bounds of one read.
type readLimits struct {
	defaultLines int
	maxLines     int
	byteBudget   int64 // bytes scanned to reach and fill the window
	countBudget  int64 // further bytes scanned after the window to learn total_lines
	charBudget   int   // characters in the returned window
	lineChars    int   // characters kept of one line
	hashMax      int64 // a file up to this size is hashed as it is scanned (ReadResult.SHA256)
}

var defaultReadLimits = readLimits{
	defaultLines: 2000,
	maxLines:     10000,
	byteBudget:   64 << 20,
	countBudget:  4 << 20,
	charBudget:   50000,
	lineChars:    2000,
	// write_file's content comes in the arguments (256 KiB at most): no
	// model rewrites a file much larger whole, and hashing every byte of
	// a long scan roughly doubled its time.
	hashMax: 8 << 20,
}

// ReadFile returns a window of lines of a text file without reading more
// of the file than the window needs.
func ReadFile(ctx context.Context, ws *Workspace, p ReadParams) (ReadResult, error) {
	return readFile(ctx, ws, p, defaultReadLimits)
}

func readFile(ctx context.Context, ws *Workspace, p ReadParams, lim readLimits) (ReadResult, error) {
	of, err := ws.openRead(p.Path)
	if err != nil {
		return ReadResult{}, err
	}
	defer of.Close()
	res := ReadResult{Path: of.t.display, FileSize: of.size, SizeUnknown: sizeUnknown(of.f, of.size)}
	binary, mime, err := sniff(of.f, of.size)
	if err != nil {
		return ReadResult{}, fmt.Errorf("%s: read: %w", p.Path, err)
	}
	if binary {
		res.Binary, res.MimeType = true, mime
		res.BytesScanned = min(of.size, sniffLen)
		size := fmt.Sprintf("%d bytes", of.size)
		if res.SizeUnknown {
			res.BytesScanned = sniffLen
			size = "size unknown: stat reports 0"
		}
		res.Note = fmt.Sprintf("binary file (%s, %s); its bytes are not shown as text", mime, size)
		return res, nil
	}
	if res.SizeUnknown && p.Offset < 0 {
		res.Note = "the file's size is unknown (stat reports 0, as for procfs files), so it cannot be read from the end; read it with a positive offset"
		return res, nil
	}
	limit := p.Limit
	if limit <= 0 {
		limit = lim.defaultLines
	}
	limit = min(limit, lim.maxLines)
	w := window{res: &res, lim: lim, limit: limit}
	if p.Offset < 0 {
		err = w.fromEnd(ctx, of, -p.Offset)
	} else {
		err = w.fromLine(ctx, of, max(p.Offset, 1))
	}
	if err != nil {
		return ReadResult{}, err
	}
	res.Content = w.sb.String()
	if res.InvalidUTF8Lines > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d line(s) held bytes that are not valid UTF-8; each run of such bytes is shown as U+FFFD", res.InvalidUTF8Lines))
	}
	return res, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// window fills a ReadResult from a line stream.
type window struct {
	res   *ReadResult
	lim   readLimits
	limit int
	sb    strings.Builder
	chars int
	// binaryAt is the 1-based line of the window that held a NUL byte.
	binaryAt int
}

// fromLine skips to line start and fills the window from there.
func (w *window) fromLine(ctx context.Context, of *openedFile, start int) error {
	var src io.Reader = of.f
	whole := func() {} // a file too large to hash gets no SHA256
	if of.size <= w.lim.hashMax {
		// Every way to the end of the file below calls whole: the tee has
		// seen each byte of it by then.
		h := sha256.New()
		src = io.TeeReader(of.f, h)
		whole = func() { w.res.SHA256 = hex.EncodeToString(h.Sum(nil)) }
	}
	lr := newLineReader(src, w.lim.byteBudget)
	defer func() { w.res.BytesScanned = lr.scanned }()
	var buf []byte
	line := 0
	for line+1 < start {
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		_, _, _, err := lr.next(buf, 0)
		if errors.Is(err, io.EOF) {
			w.res.TotalLines, w.res.TotalLinesKnown = line, true
			w.res.Note = fmt.Sprintf("offset %d is past the end of the file (%d lines)", start, line)
			whole()
			return nil
		}
		if errors.Is(err, errByteBudget) {
			w.stop("byte_budget")
			w.res.Truncated = true
			w.res.Note = fmt.Sprintf("line %d lies beyond the first %d bytes scanned (reached line %d); use a negative offset to read from the end", start, lr.budget, line)
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: read: %w", w.res.Path, err)
		}
		line++
	}
	w.res.StartLine = start
	end, err := w.fill(ctx, lr)
	if err != nil {
		return err
	}
	if w.res.LinesReturned > 0 {
		w.res.EndLine = start + w.res.LinesReturned - 1
	} else {
		w.res.StartLine = 0
	}
	seen := start - 1 + w.res.LinesReturned // lines consumed so far
	switch end {
	case endOfFile:
		whole()
		w.res.TotalLines, w.res.TotalLinesKnown = seen, true
		if w.res.LinesReturned == 0 && start > 1 {
			w.res.Note = fmt.Sprintf("offset %d is past the end of the file (%d lines)", start, seen)
		}
		return nil
	case endByteBudget:
		w.res.NextOffset = seen + 1
		return nil
	case endBinary:
		at := start - 1 + w.binaryAt
		w.res.NextOffset = at + 1
		w.res.Note = joinNote(w.res.Note, fmt.Sprintf("line %d holds bytes that are not text (NUL); it is not shown, and the window stops before it", at))
		return nil
	case endCharBudget:
		seen++ // the line that did not fit was consumed
	}
	rest, known, err := lr.countRest(w.lim.countBudget)
	if err != nil {
		return fmt.Errorf("%s: read: %w", w.res.Path, err)
	}
	if known {
		whole()
		w.res.TotalLines, w.res.TotalLinesKnown = seen+rest, true
	}
	if end == endLimit && known && rest == 0 {
		w.res.StoppedBy = nil // the window ended exactly at the end of the file
		return nil
	}
	w.res.Truncated = true
	w.res.NextOffset = start + w.res.LinesReturned
	return nil
}

// windowEnd says what ended a window.
type windowEnd int

const (
	endOfFile windowEnd = iota
	endLimit
	endCharBudget
	endByteBudget
	endBinary
)

// fill appends lines until the limit, a budget or the end of the stream.
func (w *window) fill(ctx context.Context, lr *lineReader) (windowEnd, error) {
	keep := w.lim.lineChars*utf8.UTFMax + 1
	buf := make([]byte, 0, keep)
	for w.res.LinesReturned < w.limit {
		if w.res.LinesReturned%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		kept, length, newline, err := lr.next(buf, keep)
		if errors.Is(err, io.EOF) {
			return endOfFile, nil
		}
		if errors.Is(err, errByteBudget) {
			w.stop("byte_budget")
			w.res.Truncated = true
			return endByteBudget, nil
		}
		if err != nil {
			return 0, fmt.Errorf("%s: read: %w", w.res.Path, err)
		}
		if bytes.IndexByte(kept, 0) >= 0 {
			// A NUL is not text, wherever in the file it is: the sniff saw
			// only the head.
			w.stop("binary_data")
			w.res.Truncated = true
			w.binaryAt = w.res.LinesReturned + 1
			return endBinary, nil
		}
		text, cut := w.lineText(kept, length, newline)
		n := utf8.RuneCountInString(text)
		if w.chars+n > w.lim.charBudget && w.res.LinesReturned > 0 {
			w.stop("char_budget")
			w.res.Truncated = true
			return endCharBudget, nil
		}
		w.sb.WriteString(text)
		w.chars += n
		w.res.LinesReturned++
		if cut {
			w.res.LinesCut++
		}
	}
	w.stop("limit")
	return endLimit, nil
}

// lineText renders one line: valid UTF-8, cut with a marker when longer
// than lineChars, newline kept as in the file.
func (w *window) lineText(kept []byte, length int64, newline bool) (string, bool) {
	body := kept
	if newline && int64(len(kept)) == length {
		body = kept[:len(kept)-1]
	}
	fullBody := length
	if newline {
		fullBody--
	}
	cut := false
	if utf8.RuneCount(body) > w.lim.lineChars || int64(len(body)) < fullBody {
		i, n := 0, 0
		for i < len(body) && n < w.lim.lineChars {
			_, size := utf8.DecodeRune(body[i:])
			i += size
			n++
		}
		body = body[:i]
		cut = true
	}
	if !utf8.Valid(body) {
		w.res.InvalidUTF8Lines++
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if cut {
		s += fmt.Sprintf(" …[line cut: %d more bytes]", fullBody-int64(len(body)))
	}
	if newline {
		s += "\n"
	}
	return s, cut
}

func (w *window) stop(reason string) {
	for _, r := range w.res.StoppedBy {
		if r == reason {
			return
		}
	}
	w.res.StoppedBy = append(w.res.StoppedBy, reason)
}
