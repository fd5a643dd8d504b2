// Package prompt asks the operator about one approval card on a
// terminal: it prints the card's text, reads one answer line and asks
// again after one it does not recognise. It knows nothing of what the
// card says (host/approval renders it; a front end may get it rendered
// from the host), so that a small front end can ask without linking the
// policy code behind a card (the shell parser).
package prompt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Answer is what the operator decided. The zero value is Deny, so that
// an answer nobody set refuses.
type Answer int

const (
	Deny Answer = iota
	AllowOnce
	AllowSession
	// DenySession refuses this call and asks the caller not to ask again
	// in this session; only a card that is SessionDeniable offers it.
	DenySession
)

func (a Answer) String() string {
	switch a {
	case Deny:
		return "deny"
	case AllowOnce:
		return "allow once"
	case AllowSession:
		return "allow for session"
	case DenySession:
		return "deny for session"
	}
	return fmt.Sprintf("answer(%d)", int(a))
}

// Card is what the operator is asked about.
type Card struct {
	// Body is the card's text without its question, inert already.
	Body string
	// SessionAllowable and SessionDeniable say which answers it offers.
	SessionAllowable, SessionDeniable bool
}

// maxAnswerBytes bounds one answer line; the rest of a longer line is
// read and dropped.
const maxAnswerBytes = 256

// MaxAsks bounds how often one prompt asks again after answers it does
// not recognise, so a stream of noise still ends (denied).
const MaxAsks = 5

// Terminal asks on a terminal: it prints a card and reads one line,
// "o"/"once", "s"/"session" or "d"/"deny". An empty line or EOF denies;
// anything else asks again (up to MaxAsks times, then denies), so a typo
// never decides. Use it by pointer; prompts are serialised.
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

// Ask prints the card and waits for an answer or for ctx to end. A read
// left waiting by a cancelled prompt is reused by the next one, but a
// line that arrived before the next card was printed is dropped: it was
// typed for another question.
func (t *Terminal) Ask(ctx context.Context, card Card) (Answer, error) {
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
		if _, err := io.WriteString(t.Out, card.Body); err != nil {
			return Deny, fmt.Errorf("print the approval card: %w", err)
		}
	} else if _, err := io.WriteString(t.Out, card.Body+Question(card)); err != nil {
		return Deny, fmt.Errorf("print the approval card: %w", err)
	}
	for asked := 1; ; asked++ {
		line, err := read(ctx, Question(card))
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
		answer, known := parseAnswer(line, card)
		switch {
		case known:
			fmt.Fprintf(t.Out, "%s\n", answer)
			return answer, nil
		case asked >= MaxAsks:
			fmt.Fprintf(t.Out, "unrecognised answer %q: denied after %d tries\n", Inert(TruncateRunes(line, 40)), asked)
			return Deny, nil
		}
		fmt.Fprintf(t.Out, "unrecognised answer %q; answer %s\n", Inert(TruncateRunes(line, 40)), answerWords(card))
		if t.Lines == nil {
			if _, err := io.WriteString(t.Out, Question(card)); err != nil {
				return Deny, fmt.Errorf("print the approval card: %w", err)
			}
		}
	}
}

// Question is the card's last line, the question itself.
func Question(card Card) string {
	switch {
	case card.SessionAllowable && card.SessionDeniable:
		return "allow? [o]nce / [s]ession / [d]eny / [n]ever in this session (default deny): "
	case card.SessionDeniable:
		return "allow? [o]nce / [d]eny / [n]ever in this session (default deny): "
	}
	if card.SessionAllowable {
		return "allow? [o]nce / [s]ession / [d]eny (default deny): "
	}
	return "allow? [o]nce / [d]eny (default deny): "
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

func answerWords(card Card) string {
	switch {
	case card.SessionAllowable && card.SessionDeniable:
		return "o (once), s (session), d (deny) or n (never in this session)"
	case card.SessionDeniable:
		return "o (once), d (deny) or n (never in this session)"
	}
	if card.SessionAllowable {
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

func parseAnswer(line string, card Card) (Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once":
		return AllowOnce, true
	case "s", "session":
		if card.SessionAllowable {
			return AllowSession, true
		}
		return Deny, false
	case "n", "never":
		if card.SessionDeniable {
			return DenySession, true
		}
		return Deny, false
	case "", "d", "deny":
		return Deny, true
	}
	return Deny, false
}

// Inert escapes control and format characters (ANSI escapes, carriage
// returns, bidi overrides) so they print as text.
func Inert(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], string(utf8.RuneError)):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || (unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r)):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// TruncateRunes cuts s after n runes, saying how many bytes were left.
func TruncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for i := range s {
		if n == 0 {
			cut = i
			break
		}
		n--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// Abandoned is how many lines a read left by an abandoned prompt has
// delivered and nobody took yet (0 or 1): for tests of the stale-line rule.
func (t *Terminal) Abandoned() int { return len(t.pending) }
