package terminal

import (
	"errors"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"demiurge.dev/shared/redact"
)

// Bounds on what crosses to the host while a command runs: the rest lives
// only in the artifact.
const (
	// ChunkBytes is the largest output chunk sent to the host.
	ChunkBytes = 16 << 10
	// StreamedLimit is how many bytes of one stream one call sends to the
	// host at most.
	StreamedLimit = 1 << 20
	// readBuffer is one drain read; pipes are widened to match.
	readBuffer = 1 << 20
)

// StreamResult is what a call keeps of one stream.
type StreamResult struct {
	// Tail is the last TailChars characters, redacted.
	Tail string `json:"tail"`
	// Bytes and Chars count the whole redacted stream.
	Bytes int64 `json:"bytes"`
	Chars int64 `json:"chars"`
	// Truncated says Tail is not the whole stream.
	Truncated bool `json:"truncated"`
	// Artifact is the stream's file, relative to the artifact root; empty
	// when it could not be written.
	Artifact string `json:"artifact,omitempty"`
	// StreamedBytes were sent to the host as output chunks; SkippedBytes
	// were not (past the limit, or while the host was slow to take them).
	StreamedBytes int64 `json:"streamed_bytes"`
	SkippedBytes  int64 `json:"skipped_bytes"`
	// DroppedBytes came past the call's output cap (CapBytes): counted
	// and read from the pipe, but not kept in the artifact.
	DroppedBytes int64 `json:"dropped_bytes,omitempty"`
	CapBytes     int64 `json:"cap_bytes"`
}

// chunk is one bounded piece of output on its way to the host.
type chunk struct {
	stream string
	data   []byte
}

// stream is one of stdout and stderr: redaction first, then the artifact,
// the tail and the chunks, all fed from one drain goroutine.
type stream struct {
	name string
	red  *redact.Writer
	art  *artifact
	tail *tail
	out  chan<- chunk

	pending []byte // the chunk being filled
	sent    int64
	skipped int64
}

func newStream(name string, secrets *redact.Replacer, art *artifact, out chan<- chunk) *stream {
	s := &stream{name: name, art: art, tail: newTail(), out: out}
	s.red = secrets.NewWriter(fanout{s})
	return s
}

// fanout receives redacted bytes only.
type fanout struct{ s *stream }

func (f fanout) Write(p []byte) (int, error) {
	s := f.s
	_, _ = s.art.Write(p) // keeps its own error; the drain must go on
	_, _ = s.tail.Write(p)
	s.offer(p)
	return len(p), nil
}

// offer queues p for the host without ever waiting: what does not fit in
// the chunk being filled while the sender is busy is skipped and counted.
func (s *stream) offer(p []byte) {
	for len(p) > 0 {
		room := min(ChunkBytes-len(s.pending), int(StreamedLimit-s.sent)-len(s.pending))
		if room <= 0 {
			if len(s.pending) == ChunkBytes && s.handoff() {
				continue
			}
			s.skipped += int64(len(p))
			return
		}
		n := min(room, len(p))
		s.pending = append(s.pending, p[:n]...)
		p = p[n:]
	}
	s.handoff()
}

// handoff passes the pending chunk to the sender if it can take it now.
func (s *stream) handoff() bool {
	if len(s.pending) == 0 {
		return true
	}
	select {
	case s.out <- chunk{stream: s.name, data: s.pending}:
		s.sent += int64(len(s.pending))
		s.pending = nil
		return true
	default:
		return false
	}
}

// drain reads r to its end through the redactor. It returns
// errDrainCut when r was closed under it.
func (s *stream) drain(r *os.File) error {
	// A small buffer first: most commands print little. A read that
	// fills it means bulk output, which gets the big one.
	small := smallReadBuffers.Get().(*[]byte)
	defer smallReadBuffers.Put(small)
	buf := *small
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = s.red.Write(buf[:n]) // the fanout never fails
		}
		if n == len(buf) && len(buf) < readBuffer {
			big := readBuffers.Get().(*[]byte)
			defer readBuffers.Put(big)
			buf = *big
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, os.ErrClosed):
			return errDrainCut
		default:
			return err
		}
	}
}

// readBuffers are reused: a fresh 1 MiB buffer per stream would cost
// more to clear than a short command costs to run.
var (
	readBuffers      = sync.Pool{New: func() any { b := make([]byte, readBuffer); return &b }}
	smallReadBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}
)

// errDrainCut says a stream was closed before its end: a process outside
// the group kept the pipe open after the group was gone.
var errDrainCut = errors.New("output was cut: a process that left the command's process group kept the pipe open")

// finish flushes the redactor's held-back bytes, hands the last chunk to
// the sender (waiting this once: it is bounded and at the end), closes the
// artifact and returns the stream's result and the artifact's error.
func (s *stream) finish() (StreamResult, error) {
	_ = s.red.Close()
	s.tail.finish()
	if len(s.pending) > 0 {
		s.out <- chunk{stream: s.name, data: s.pending}
		s.sent += int64(len(s.pending))
		s.pending = nil
	}
	artErr := s.art.close()
	text, truncated := s.tail.text()
	res := StreamResult{
		Tail: text, Bytes: s.tail.bytes, Chars: s.tail.chars, Truncated: truncated,
		StreamedBytes: s.sent, SkippedBytes: s.skipped,
		DroppedBytes: s.art.dropped, CapBytes: s.art.limit,
	}
	if artErr == nil {
		res.Artifact = s.art.rel
	}
	return res, artErr
}

// widenPipe asks for a 1 MiB pipe so bulk output needs fewer wake-ups;
// failure leaves the default, which only costs speed. SyscallConn, not
// Fd: Fd would put the file in blocking mode, and Close could then no
// longer interrupt a Read.
func widenPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, readBuffer)
	})
}
