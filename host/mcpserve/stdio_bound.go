package mcpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// boundedLines hands its reader's input on one whole line at a time and
// never holds more than max bytes of a line: mcp-go's stdio server reads
// a message as one line of any length, so a client could make it buffer
// without end. A longer line is read through and dropped; when it is a
// request whose id can be found, refused answers it with an error.
type boundedLines struct {
	src     *bufio.Reader
	max     int
	pending []byte // the rest of the current line, not yet read
	err     error  // the source's error, after pending
	refused func(id json.RawMessage, size int)
	// admit, when set, sees each whole line before it is handed on; a
	// line it does not admit is dropped.
	admit func(line []byte) bool
}

func newBoundedLines(r io.Reader, max int, refused func(id json.RawMessage, size int)) *boundedLines {
	return &boundedLines{src: bufio.NewReaderSize(r, max), max: max, refused: refused}
}

func (b *boundedLines) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		line, err := b.src.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			b.drop(line)
			continue
		}
		// line stays valid until the next ReadSlice, which waits until it
		// has been handed on.
		if b.admit != nil && len(line) > 0 && !b.admit(line) {
			line = nil
		}
		b.pending, b.err = line, err
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// drop reads the rest of an oversized line, looking for its id on the way.
func (b *boundedLines) drop(first []byte) {
	var scan idScanner
	size := len(first)
	scan.feed(first)
	for {
		chunk, err := b.src.ReadSlice('\n')
		size += len(chunk)
		scan.feed(chunk)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			b.err = err
		}
		break
	}
	b.refused(scan.id, size)
}

// lineWriter makes each Write whole on out: mcp-go writes a message with
// one Write, and the refusals of oversized lines come from another
// goroutine.
type lineWriter struct {
	mu  sync.Mutex
	out io.Writer
	// written, when set, sees each message mcp-go writes before it is
	// written (a response ends its request's place in the gate before
	// the client can send the next).
	written func(p []byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	if w.written != nil {
		w.written(p)
	}
	return w.own(p)
}

// own writes a message of the stdio server's own (a refusal), which ends
// no request.
func (w *lineWriter) own(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

// refusal is the JSON-RPC error answering an oversized request.
func refusal(id json.RawMessage, size, max int) []byte {
	msg, _ := json.Marshal(fmt.Sprintf("request of %d bytes refused: a message may be at most %d bytes", size, max))
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":%s}}`+"\n", id, msg)
	return b.Bytes()
}

// idScanner finds the value of the top-level "id" member of a JSON
// object read in pieces, keeping only a few bytes: the id may come after
// megabytes of params (the TypeScript SDK writes it last). As
// encoding/json, which mcp-go decodes with, the last "id" counts.
type idScanner struct {
	depth            int
	ended            bool
	inString, escape bool
	atKey            bool   // the next string at depth 1 is a member name
	key              []byte // the member name being read, at depth 1
	keyLong          bool
	wantValue        bool   // after `"id":`
	value            []byte // the id's value so far
	id               json.RawMessage
}

const maxIDBytes = 256

func (s *idScanner) feed(p []byte) {
	for _, c := range p {
		if s.ended {
			return
		}
		if s.wantValue {
			s.stepValue(c)
		} else {
			s.step(c)
		}
	}
}

func (s *idScanner) step(c byte) {
	if s.inString {
		switch {
		case s.escape:
			s.escape = false
		case c == '\\':
			s.escape = true
		case c == '"':
			s.inString = false
			return
		}
		if s.depth == 1 && s.atKey {
			if len(s.key) < 8 {
				s.key = append(s.key, c)
			} else {
				s.keyLong = true
			}
		}
		return
	}
	switch c {
	case '"':
		s.inString = true
		if s.depth == 1 && s.atKey {
			s.key, s.keyLong = s.key[:0], false
		}
	case '{', '[':
		if s.depth == 0 && c == '[' {
			s.ended = true // a batch: no one id to answer
		}
		s.depth++
		s.atKey = s.depth == 1
	case '}', ']':
		s.depth--
		if s.depth <= 0 {
			s.ended = true
		}
	case ',':
		s.atKey = s.depth == 1
	case ':':
		if s.depth == 1 && s.atKey {
			s.atKey = false
			if !s.keyLong && string(s.key) == "id" {
				s.wantValue, s.value = true, s.value[:0]
			}
		}
	}
}

// stepValue collects the id's value: a string or a number is kept; any
// other value, or one too long, leaves no id, and the scan goes on.
func (s *idScanner) stepValue(c byte) {
	switch {
	case len(s.value) == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
		return
	case len(s.value) == 0 && (c == '{' || c == '[' || c == '"'):
		if c != '"' {
			s.wantValue, s.id = false, nil
			s.step(c)
			return
		}
		s.value = append(s.value, c)
		s.escape = false
	case len(s.value) > 0 && s.value[0] == '"':
		s.value = append(s.value, c)
		if c == '"' && !s.escape {
			s.finish()
			return
		}
		s.escape = c == '\\' && !s.escape
	case c == ',' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n':
		s.finish()
		s.step(c)
		return
	default:
		s.value = append(s.value, c)
	}
	if len(s.value) > maxIDBytes {
		// Too long to be an id anyone answers to: read the rest as any value.
		s.wantValue, s.id = false, nil
		s.inString = s.value[0] == '"'
	}
}

func (s *idScanner) finish() {
	s.wantValue, s.id = false, nil
	var v any
	if json.Unmarshal(s.value, &v) != nil {
		return
	}
	switch v.(type) {
	case string, float64:
		s.id = json.RawMessage(bytes.Clone(s.value))
	}
}
