package redact

import (
	"errors"
	"io"
	"sync"
)

// ErrClosed is returned by a Writer used after Close.
var ErrClosed = errors.New("redact: write to a closed redacting writer")

// Writer redacts a byte stream on its way to dst. A secret split across
// Write calls is still found: the Writer holds back at most MaxLen-1 bytes
// that could be the start of a secret until the next Write, Flush or Close
// decides. It is safe for concurrent use; writes are serialised.
type Writer struct {
	mu      sync.Mutex
	dst     io.Writer
	r       *Replacer
	pending []byte
	out     []byte
	err     error // sticky: a failed dst write loses bytes, so later ones fail too
	closed  bool
}

// NewWriter returns a Writer that replaces every value of secrets
// (target -> value) with <redacted:TARGET> before writing to dst.
func NewWriter(dst io.Writer, secrets map[string]string) *Writer {
	return FromMap(secrets).NewWriter(dst)
}

// NewWriter returns a Writer that redacts with r.
func (r *Replacer) NewWriter(dst io.Writer) *Writer {
	return &Writer{dst: dst, r: r}
}

// Write consumes all of p. Bytes that may begin a secret are held back, so
// not all of p necessarily reaches dst before Write returns.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.r.Empty() {
		return w.writeDst(p, len(p))
	}
	total := len(p)
	if len(w.pending) > 0 {
		if len(p) < w.r.maxLen {
			w.pending = append(w.pending, p...)
			if err := w.drain(false); err != nil {
				return 0, err
			}
			return total, nil
		}
		// Decide the held-back bytes with just enough of p after them:
		// maxLen more bytes settle every secret that starts among them,
		// so the scan stops at or past their end, and the rest of p is
		// scanned where it is.
		held := len(w.pending)
		w.pending = append(w.pending, p[:w.r.maxLen]...)
		n := w.r.scan(w.pending, false, w.emit)
		if w.err != nil {
			return 0, w.err
		}
		p = p[n-held:]
		w.pending = w.pending[:0]
	}
	// Scan p where it is and write its runs straight through, copying
	// only the undecided tail. Bulk output is nearly all one literal run,
	// which then costs no copy at all.
	n := w.r.scan(p, false, w.emit)
	if w.err != nil {
		return 0, w.err
	}
	w.pending = append(w.pending, p[n:]...)
	return total, nil
}

// emit writes a decided literal run and the marker that ends it to dst.
// After a failure it does nothing: the error is sticky.
func (w *Writer) emit(lit []byte, marker string) {
	if w.err != nil {
		return
	}
	if len(lit) > 0 {
		if _, err := w.writeDst(lit, 0); err != nil {
			return
		}
	}
	if marker != "" {
		w.out = append(w.out[:0], marker...)
		_, _ = w.writeDst(w.out, 0)
	}
}

// Flush writes the held-back tail as it is. Call it only where the stream
// really has a boundary: a secret split across a Flush is not recognised.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	return w.flushLocked()
}

// Close flushes the held-back tail. It does not close dst, which the Writer
// does not own. Closing twice is harmless.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	err := w.flushLocked()
	w.closed = true
	return err
}

func (w *Writer) flushLocked() error {
	if w.err != nil {
		return w.err
	}
	return w.drain(true)
}

// drain redacts what is pending, writes the decided part to dst and keeps the
// undecided tail.
func (w *Writer) drain(final bool) error {
	w.out = w.out[:0]
	n := w.r.scan(w.pending, final, func(lit []byte, marker string) {
		w.out = append(w.out, lit...)
		w.out = append(w.out, marker...)
	})
	rest := copy(w.pending, w.pending[n:])
	w.pending = w.pending[:rest]
	if len(w.out) == 0 {
		return nil
	}
	_, err := w.writeDst(w.out, 0)
	return err
}

// writeDst writes b to dst and returns n on success; a short write is an
// error as io.Writer requires.
func (w *Writer) writeDst(b []byte, n int) (int, error) {
	m, err := w.dst.Write(b)
	if err == nil && m < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
		return 0, err
	}
	return n, nil
}
