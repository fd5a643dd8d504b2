package dispatch

import (
	"bytes"
	"unicode/utf8"

	"demiurge.dev/host/runtime"
)

// taskStream hands one stream's redacted bytes to the task.
type taskStream struct {
	sink   *runtime.TaskOutput
	stream string
}

func (s taskStream) Write(p []byte) (int, error) {
	if err := s.sink.Write(s.stream, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// tokenLines applies the well-known token formats (and makes the text
// valid UTF-8) to whole lines of a stream whose exact secrets are already
// redacted: a token is matched within a line, so text is held back until
// its line ends, or until MaxLogChunk bytes are waiting.
type tokenLines struct {
	dst     taskStream
	pending []byte
}

func (l *tokenLines) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	cut := bytes.LastIndexByte(l.pending, '\n') + 1
	if len(l.pending) >= runtime.MaxLogChunk {
		cut = runeBoundary(l.pending)
	}
	if cut == 0 {
		return len(p), nil
	}
	if err := l.emit(l.pending[:cut]); err != nil {
		return 0, err
	}
	l.pending = l.pending[:copy(l.pending, l.pending[cut:])]
	return len(p), nil
}

// runeBoundary is len(b), backed off a character cut at the end.
func runeBoundary(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// Close writes what is held back.
func (l *tokenLines) Close() error {
	err := l.emit(l.pending)
	l.pending = nil
	return err
}

func (l *tokenLines) emit(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := l.dst.Write([]byte(redactText(string(b), nil)))
	return err
}
