package approval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// maxAnswerBytes bounds one answer line; the rest of a longer line is
// read and dropped.
const maxAnswerBytes = 256

// Terminal asks the operator on a terminal: it prints a card and reads
// one line, "o"/"once", "s"/"session" or "d"/"deny". An empty line, EOF or
// anything else denies. Use it by pointer; prompts are serialised.
type Terminal struct {
	In  io.Reader
	Out io.Writer

	once    sync.Once
	turn    chan struct{} // one prompt at a time
	lines   *bufio.Reader
	pending chan lineResult // the read in flight, if a prompt was abandoned
}

type lineResult struct {
	line string
	err  error
}

func (t *Terminal) Name() string { return "terminal" }

// Ask prints the card and waits for an answer or for ctx to end. A read
// left waiting by a cancelled prompt is reused by the next one, but a
// line that arrived before the next card was printed is dropped: it was
// typed for another question.
func (t *Terminal) Ask(ctx context.Context, req Request) (Answer, error) {
	if t.In == nil || t.Out == nil {
		return Deny, errors.New("terminal approval needs both an input and an output")
	}
	if err := ctx.Err(); err != nil {
		return Deny, err
	}
	t.once.Do(func() {
		t.turn = make(chan struct{}, 1)
		t.lines = bufio.NewReader(t.In)
	})
	select {
	case t.turn <- struct{}{}:
		defer func() { <-t.turn }()
	case <-ctx.Done():
		return Deny, ctx.Err()
	}
	if t.pending != nil {
		select {
		case <-t.pending:
			t.pending = nil
		default:
		}
	}
	if err := writeCard(t.Out, req); err != nil {
		return Deny, fmt.Errorf("print the approval card: %w", err)
	}
	if t.pending == nil {
		t.pending = make(chan lineResult, 1)
		go readAnswer(t.lines, t.pending)
	}
	select {
	case res := <-t.pending:
		t.pending = nil
		if errors.Is(res.err, io.EOF) {
			fmt.Fprintln(t.Out, "\nno answer (input closed): denied")
			return Deny, nil
		}
		if res.err != nil {
			return Deny, fmt.Errorf("read the approval answer: %w", res.err)
		}
		answer, known := parseAnswer(res.line, req.SessionAllowable)
		if !known {
			fmt.Fprintf(t.Out, "unrecognised answer %q: denied\n", inert(truncateRunes(res.line, 40)))
		} else {
			fmt.Fprintf(t.Out, "%s\n", answer)
		}
		return answer, nil
	case <-ctx.Done():
		fmt.Fprintln(t.Out, "\ncancelled: denied")
		return Deny, ctx.Err()
	}
}

// readAnswer reads one line, keeping at most maxAnswerBytes of it. The
// channel is buffered, so the goroutine ends once the line (or an error)
// arrives even if nobody waits any more.
func readAnswer(r *bufio.Reader, out chan<- lineResult) {
	var b []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				err = nil
			}
			out <- lineResult{line: string(b), err: err}
			return
		}
		if c == '\n' {
			out <- lineResult{line: string(b)}
			return
		}
		if len(b) < maxAnswerBytes {
			b = append(b, c)
		}
	}
}

func parseAnswer(line string, sessionAllowable bool) (Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once":
		return AllowOnce, true
	case "s", "session":
		if sessionAllowable {
			return AllowSession, true
		}
		return Deny, false
	case "", "d", "deny":
		return Deny, true
	}
	return Deny, false
}
