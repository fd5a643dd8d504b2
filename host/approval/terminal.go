package approval

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"demiurge.dev/host/approval/prompt"
)

// maxAsks bounds how often one prompt asks again after answers it does
// not recognise (prompt.MaxAsks).
const maxAsks = prompt.MaxAsks

// Terminal asks the operator on a terminal: it prints a card and reads
// one line, "o"/"once", "s"/"session" or "d"/"deny". An empty line or EOF
// denies; anything else asks again (up to maxAsks times, then denies), so
// a typo never decides. Use it by pointer; prompts are serialised. The
// asking is package prompt's, which a small front end uses with a card
// the host rendered.
type Terminal struct {
	In  io.Reader
	Out io.Writer
	// Lines, when set, reads each answer instead of In: a line editor
	// that owns the terminal shows the question as its prompt. It must
	// return when ctx ends.
	Lines func(ctx context.Context, prompt string) (string, error)

	once sync.Once
	p    *prompt.Terminal
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
	t.once.Do(func() { t.p = &prompt.Terminal{In: t.In, Out: t.Out, Lines: t.Lines} })
	return t.p.Ask(ctx, PromptCard(req))
}

// PromptCard is req's card as package prompt asks it.
func PromptCard(req Request) prompt.Card {
	var b strings.Builder
	cardBody(&b, req)
	return prompt.Card{Body: b.String(), SessionAllowable: req.SessionAllowable, SessionDeniable: req.SessionDeniable}
}
