package approval

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

// screen is a goroutine-safe output that tells when a prompt has been
// printed.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	prompts chan struct{}
}

func newScreen() *screen { return &screen{prompts: make(chan struct{}, 16)} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes.Contains(p, []byte("allow? [o]nce")) {
		s.prompts <- struct{}{}
	}
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func TestTerminalAnswers(t *testing.T) {
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	noSession := req
	noSession.SessionAllowable = false
	deniable := req
	deniable.SessionDeniable = true
	for _, tc := range []struct {
		name   string
		input  string
		req    Request
		want   Answer
		output string
	}{
		{"once", "o\n", req, AllowOnce, "allow once"},
		{"once spelled out, loud, CRLF", "  ONCE \r\n", req, AllowOnce, "allow once"},
		{"session", "s\n", req, AllowSession, "allow for session"},
		{"session word", "session\n", req, AllowSession, "allow for session"},
		{"session not offered", "s\n", noSession, Deny, `unrecognised answer "s"`},
		{"deny", "d\n", req, Deny, "deny"},
		{"empty line is the default", "\n", req, Deny, "deny"},
		{"unknown", "yes\n", req, Deny, `unrecognised answer "yes"`},
		{"last line without newline", "o", req, AllowOnce, "allow once"},
		{"EOF", "", req, Deny, "input closed"},
		{"oversized line", strings.Repeat("o", 100000) + "\n", req, Deny, "unrecognised answer"},
		{"escape sequence in the answer", "\x1b[2Jo\n", req, Deny, `\x1b[2Jo`},
		{"never in this session", "n\n", deniable, DenySession, "deny for session"},
		{"never spelled out", "never\n", deniable, DenySession, "[n]ever in this session"},
		{"never not offered", "n\n", req, Deny, `unrecognised answer "n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := newScreen()
			term := &Terminal{In: strings.NewReader(tc.input), Out: out}
			got, err := term.Ask(context.Background(), tc.req)
			if err != nil || got != tc.want {
				t.Fatalf("Ask = %v, %v; want %v", got, err, tc.want)
			}
			if !strings.Contains(out.String(), tc.output) {
				t.Errorf("output %q lacks %q", out.String(), tc.output)
			}
			if strings.Contains(out.String(), "\x1b") {
				t.Errorf("output carries a raw escape: %q", out.String())
			}
		})
	}
}

func TestTerminalCard(t *testing.T) {
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	req.Preview = "{\"path\":\"notes.txt\",\"content\":\"\x1b]0;owned\x07\u202e\xff" + strings.Repeat("x", 5000) + "\"}"
	req.Subjects[0].Resolved = "/ws/notes\x1b[1A.txt"
	out := newScreen()
	if _, err := (&Terminal{In: strings.NewReader("d\n"), Out: out}).Ask(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	card := out.String()
	for _, want := range []string{
		"approval needed: write_file", "risk medium", "policy prompt", "why      writes notes.txt",
		`path     write /ws/notes\x1b[1A.txt (inside the workspace)`, `\x1b]0;owned\a\u202e\xff`, "more bytes)",
		"[o]nce / [s]ession / [d]eny (default deny)",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q:\n%s", want, card)
		}
	}
	if strings.ContainsAny(card, "\x1b\x07\u202e") {
		t.Errorf("card carries raw control characters:\n%q", card)
	}
	if len(card) > 2000 {
		t.Errorf("card is %d bytes; the preview was not bounded", len(card))
	}

	req.SessionAllowable = false
	out = newScreen()
	(&Terminal{In: strings.NewReader("d\n"), Out: out}).Ask(context.Background(), req)
	if !strings.Contains(out.String(), "[o]nce / [d]eny (default deny)") || strings.Contains(out.String(), "[s]ession") {
		t.Errorf("a session allow was offered for a call that cannot keep one:\n%s", out.String())
	}
}

func TestTerminalSeveralQuestions(t *testing.T) {
	// "nope" is asked again, so "s" answers the second question.
	term := &Terminal{In: strings.NewReader("o\nnope\ns\n"), Out: io.Discard}
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	for i, want := range []Answer{AllowOnce, AllowSession, Deny} {
		if got, err := term.Ask(context.Background(), req); err != nil || got != want {
			t.Fatalf("question %d: %v, %v; want %v", i, got, err, want)
		}
	}
}

func TestTerminalCancellation(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	out := newScreen()
	term := &Terminal{In: pr, Out: out}
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")

	// 1. A prompt nobody answers ends with its context.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		ans, err := term.Ask(ctx, req)
		if ans != Deny {
			err = errors.New("a cancelled prompt allowed")
		}
		done <- err
	}()
	<-out.prompts
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Ask: %v", err)
	}

	// 2. The next prompt reuses the read in flight: a line typed after
	// its card answers it.
	go func() {
		ans, err := term.Ask(context.Background(), req)
		if err == nil && ans != AllowOnce {
			err = errors.New("the answer after the card was not taken: " + ans.String())
		}
		done <- err
	}()
	<-out.prompts
	if _, err := io.WriteString(pw, "o\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// 3. A line typed for a cancelled prompt does not answer the next.
	ctx, cancel = context.WithCancel(context.Background())
	go func() { _, err := term.Ask(ctx, req); done <- err }()
	<-out.prompts
	cancel()
	<-done
	if _, err := io.WriteString(pw, "o\n"); err != nil {
		t.Fatal(err)
	}
	for term.p.Abandoned() == 0 { // the abandoned read delivers the stale line
		waitABit()
	}
	go func() {
		ans, err := term.Ask(context.Background(), req)
		if err == nil && ans != Deny {
			err = errors.New("a stale line answered a new prompt: " + ans.String())
		}
		done <- err
	}()
	<-out.prompts
	pw.Close() // EOF: the new prompt gets no answer and denies
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// 4. A prompt waiting for its turn gives up with its context.
	pr2, pw2 := io.Pipe()
	defer pr2.Close()
	out2 := newScreen()
	busy := &Terminal{In: pr2, Out: out2}
	go func() { _, err := busy.Ask(context.Background(), req); done <- err }()
	<-out2.prompts
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if ans, err := busy.Ask(ctx, req); ans != Deny || !errors.Is(err, context.Canceled) {
		t.Fatalf("queued Ask = %v, %v", ans, err)
	}
	pw2.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Count(out2.String(), "approval needed") != 1 {
		t.Error("the queued prompt printed a card")
	}
}

func TestTerminalNeedsBothEnds(t *testing.T) {
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	for _, term := range []*Terminal{{Out: io.Discard}, {In: strings.NewReader("o\n")}} {
		if ans, err := term.Ask(context.Background(), req); ans != Deny || err == nil {
			t.Errorf("Ask = %v, %v; want Deny and an error", ans, err)
		}
	}
}

func TestResolveWithTerminal(t *testing.T) {
	clk := newClock()
	r := &Resolver{Provider: &Terminal{In: strings.NewReader("s\n"), Out: io.Discard}, Sessions: NewSessionAllows(0), Now: clk.Now}
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	for i, via := range []string{ViaPrompt, ViaSession} {
		got, err := r.Resolve(context.Background(), req)
		if err != nil || !got.Allowed || got.Via != via {
			t.Fatalf("call %d: %+v, %v; want allowed via %s", i, got, err, via)
		}
	}
}

// "deny for session" is a refusal of session scope only where the request
// offers it; elsewhere it is a plain deny.
func TestResolveDenyForSession(t *testing.T) {
	req := writeRequest(t, authority(t, "s1", "rev1"), "notes.txt")
	req.SessionDeniable = true
	r := &Resolver{Provider: &Terminal{In: strings.NewReader("n\n"), Out: io.Discard}, Sessions: NewSessionAllows(0)}
	got, err := r.Resolve(context.Background(), req)
	if err != nil || got.Allowed || got.Scope != ScopeSession || !strings.Contains(got.Reason, "denied for this session by the operator at the terminal") {
		t.Fatalf("%+v, %v", got, err)
	}
	req.SessionDeniable = false
	r = &Resolver{Provider: answerer(DenySession), Sessions: NewSessionAllows(0)}
	if got, err := r.Resolve(context.Background(), req); err != nil || got.Allowed || got.Scope != "" {
		t.Fatalf("not offered: %+v, %v", got, err)
	}
}

type answerer Answer

func (a answerer) Name() string                                 { return "answerer" }
func (a answerer) Ask(context.Context, Request) (Answer, error) { return Answer(a), nil }
