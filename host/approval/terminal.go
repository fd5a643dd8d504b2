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

// maxAsks bounds how often one prompt asks again after answers it does
// not recognise, so a stream of noise still ends (denied).
const maxAsks = 5

// Terminal asks the operator on a terminal: it prints a card and reads
// one line, "o"/"once", "s"/"session" or "d"/"deny". An empty line or EOF
// denies; anything else asks again (up to maxAsks times, then denies), so
// a typo never decides. Use it by pointer; prompts are serialised.
type Terminal struct {
	In  io.Reader
	Out io.Writer
	// Lines, when set, reads each answer instead of In: a line editor
	// that owns the terminal shows the question as its prompt. It must
	// return when ctx ends.
	Lines func(ctx context.Context, prompt string) (string, error)

	once    sync.Once
	turn    chan struct{} // one prompt at a time
	lines   *bufio.Reader
	pending chan lineResult // the read in flight, if a prompt was abandoned
}

type lineResult struct {
	line string
	err  error
}

func (t *Terminal) Name() string { return "the operator at the terminal" } // "denied by the operator at the terminal"

// Ask prints the card and waits for an answer or for ctx to end. A read
// left waiting by a cancelled prompt is reused by the next one, but a
// line that arrived before the next card was printed is dropped: it was
// typed for another question.
func (t *Terminal) Ask(ctx context.Context, req Request) (Answer, error) {
	if (t.In == nil && t.Lines == nil) || t.Out == nil {
		return Deny, errors.New("terminal approval needs both an input and an output")
	}
	if err := ctx.Err(); err != nil {
		return Deny, err
	}
	t.once.Do(func() {
		t.turn = make(chan struct{}, 1)
		if t.In != nil {
			t.lines = bufio.NewReader(t.In)
		}
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
	read := t.readLine
	if t.Lines != nil {
		read = func(ctx context.Context, prompt string) (string, error) {
			line, err := t.Lines(ctx, prompt)
			return truncateBytes(line, maxAnswerBytes), err
		}
		if err := writeCardBody(t.Out, req); err != nil {
			return Deny, fmt.Errorf("print the approval card: %w", err)
		}
	} else if err := writeCard(t.Out, req); err != nil {
		return Deny, fmt.Errorf("print the approval card: %w", err)
	}
	for asked := 1; ; asked++ {
		line, err := read(ctx, cardQuestion(req))
		switch {
		case ctx.Err() != nil:
			fmt.Fprintln(t.Out, "\ncancelled: denied")
			return Deny, ctx.Err()
		case errors.Is(err, io.EOF):
			fmt.Fprintln(t.Out, "\nno answer (input closed): denied")
			return Deny, nil
		case err != nil:
			return Deny, fmt.Errorf("read the approval answer: %w", err)
		}
		answer, known := parseAnswer(line, req)
		switch {
		case known:
			fmt.Fprintf(t.Out, "%s\n", answer)
			return answer, nil
		case asked >= maxAsks:
			fmt.Fprintf(t.Out, "unrecognised answer %q: denied after %d tries\n", Inert(truncateRunes(line, 40)), asked)
			return Deny, nil
		}
		fmt.Fprintf(t.Out, "unrecognised answer %q; answer %s\n", Inert(truncateRunes(line, 40)), answerWords(req))
		if t.Lines == nil {
			if _, err := io.WriteString(t.Out, cardQuestion(req)); err != nil {
				return Deny, fmt.Errorf("print the approval card: %w", err)
			}
		}
	}
}

// readLine reads one answer from In. A read left waiting by a cancelled
// prompt stays in flight and is reused by the next one.
func (t *Terminal) readLine(ctx context.Context, _ string) (string, error) {
	if t.pending == nil {
		t.pending = make(chan lineResult, 1)
		go readAnswer(t.lines, t.pending)
	}
	select {
	case res := <-t.pending:
		t.pending = nil
		return res.line, res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func answerWords(req Request) string {
	switch {
	case req.SessionAllowable && req.SessionDeniable:
		return "o (once), s (session), d (deny) or n (never in this session)"
	case req.SessionDeniable:
		return "o (once), d (deny) or n (never in this session)"
	}
	if req.SessionAllowable {
		return "o (once), s (session) or d (deny)"
	}
	return "o (once) or d (deny)"
}

func truncateBytes(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
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

func parseAnswer(line string, req Request) (Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once":
		return AllowOnce, true
	case "s", "session":
		if req.SessionAllowable {
			return AllowSession, true
		}
		return Deny, false
	case "n", "never":
		if req.SessionDeniable {
			return DenySession, true
		}
		return Deny, false
	case "", "d", "deny":
		return Deny, true
	}
	return Deny, false
}
