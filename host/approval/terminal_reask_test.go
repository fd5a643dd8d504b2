package approval

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestTerminalAsksAgain: an answer the prompt does not know is a typo,
// not a decision; the prompt says so and asks again, and only a known
// answer, the default (empty line), EOF or too many tries decide.
func TestTerminalAsksAgain(t *testing.T) {
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	noSession := req
	noSession.SessionAllowable = false
	for _, tc := range []struct {
		name      string
		input     string
		req       Request
		want      Answer
		questions int
		output    string
	}{
		{"typo then once", "yes\no\n", req, AllowOnce, 2, `unrecognised answer "yes"; answer o (once), s (session) or d (deny)`},
		{"two typos then session", "y\nallow\ns\n", req, AllowSession, 3, "allow for session"},
		{"typo then deny", "oo\nd\n", req, Deny, 2, "deny"},
		{"typo then the default", "x\n\n", req, Deny, 2, "deny"},
		{"session not offered asks again", "s\no\n", noSession, AllowOnce, 2, "answer o (once) or d (deny)"},
		{"escape sequence asks again, inert", "\x1b[2J\no\n", req, AllowOnce, 2, `\x1b[2J`},
		{"typo then EOF", "what\n", req, Deny, 2, "input closed"},
		{"noise forever ends denied", strings.Repeat("huh\n", 50), req, Deny, maxAsks, "denied after 5 tries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := newScreen()
			got, err := (&Terminal{In: strings.NewReader(tc.input), Out: out}).Ask(context.Background(), tc.req)
			if err != nil || got != tc.want {
				t.Fatalf("Ask = %v, %v; want %v\n%s", got, err, tc.want, out.String())
			}
			if n := strings.Count(out.String(), "allow? [o]nce"); n != tc.questions {
				t.Errorf("asked %d times, want %d:\n%s", n, tc.questions, out.String())
			}
			if n := strings.Count(out.String(), "approval needed"); n != 1 {
				t.Errorf("the card was printed %d times", n)
			}
			if !strings.Contains(out.String(), tc.output) {
				t.Errorf("output lacks %q:\n%s", tc.output, out.String())
			}
			if strings.Contains(out.String(), "\x1b") {
				t.Errorf("output carries a raw escape: %q", out.String())
			}
		})
	}
}

// TestTerminalLines: with a line editor the question is its prompt, the
// card is printed once above it, a re-ask prompts again through it, and
// an error from it (an interrupt) denies with that error.
func TestTerminalLines(t *testing.T) {
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	answers := []string{"maybe", strings.Repeat("s", 10000), "s"}
	var prompts []string
	out := newScreen()
	term := &Terminal{Out: out, Lines: func(ctx context.Context, prompt string) (string, error) {
		prompts = append(prompts, prompt)
		if len(answers) == 0 {
			return "", io.EOF
		}
		a := answers[0]
		answers = answers[1:]
		return a, nil
	}}
	got, err := term.Ask(context.Background(), req)
	if err != nil || got != AllowSession {
		t.Fatalf("Ask = %v, %v\n%s", got, err, out.String())
	}
	if len(prompts) != 3 || prompts[0] != cardQuestion(req) {
		t.Fatalf("prompts %q", prompts)
	}
	if strings.Contains(out.String(), "allow? [o]nce") {
		t.Errorf("the question was written to Out as well as prompted:\n%s", out.String())
	}
	if len(out.String()) > 2000 {
		t.Errorf("an oversized answer was echoed whole (%d bytes)", len(out.String()))
	}

	interrupted := errors.New("interrupted")
	term = &Terminal{Out: io.Discard, Lines: func(context.Context, string) (string, error) { return "", interrupted }}
	if got, err := term.Ask(context.Background(), req); got != Deny || !errors.Is(err, interrupted) {
		t.Fatalf("interrupted Ask = %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	term = &Terminal{Out: io.Discard, Lines: func(ctx context.Context, _ string) (string, error) {
		cancel()
		<-ctx.Done()
		return "o", nil // a line that raced the cancellation does not allow
	}}
	if got, err := term.Ask(ctx, req); got != Deny || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Ask = %v, %v", got, err)
	}
}
