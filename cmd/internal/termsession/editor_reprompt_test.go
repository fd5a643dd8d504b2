package termsession

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chzyer/readline"
)

// lockedBuffer is the terminal's screen as written, safe across the
// editor's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// oldDrawn is closed when the old prompt is first drawn.
	oldDrawn chan struct{}
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.oldDrawn != nil && bytes.Contains(p, []byte("<<old>>")) {
		close(b.oldDrawn)
		b.oldDrawn = nil
	}
	return b.buf.Write(p)
}

// lastPrompt is the last of the two prompts drawn.
func (b *lockedBuffer) lastPrompt() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	if strings.LastIndex(s, "<<new>>") > strings.LastIndex(s, "<<old>>") {
		return "<<new>>"
	}
	return "<<old>>"
}

// TestRepromptAsAReadStartsIsDrawn: a prompt changed just as a read
// starts is on the screen once the read waits. readline draws a read's
// prompt before its terminal loop marks itself reading, and its Refresh
// does nothing until then, so a reprompt in that window (an approval
// asked again right after its last answer was read: the TestTTYChat
// flake) left the old prompt showing. Races a read's start against a
// reprompt many times; each must end with the new prompt drawn.
func TestRepromptAsAReadStartsIsDrawn(t *testing.T) {
	const rounds = 50
	lost := 0
	for i := 0; i < rounds; i++ {
		inR, inW := io.Pipe()
		screen := &lockedBuffer{oldDrawn: make(chan struct{})}
		oldDrawn := screen.oldDrawn
		rl := pipeEditor(t, "<<old>>", inR, screen)
		b := EditorLines(rl)
		done := make(chan struct{})
		go func() { b.read(""); close(done) }()
		<-oldDrawn // the read drew its prompt and is about to wait
		b.reprompt("<<new>>")
		for deadline := time.Now().Add(time.Second); !rl.Terminal.IsReading(); time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				t.Fatal("the read never started")
			}
		}
		drawn := false
		for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if screen.lastPrompt() == "<<new>>" {
				drawn = true
				break
			}
		}
		if !drawn {
			lost++
		}
		inW.Write([]byte("\n"))
		<-done
		rl.Close()
		inW.Close()
	}
	if lost > 0 {
		t.Fatalf("%d of %d prompts changed as a read started were never drawn", lost, rounds)
	}
}

// pipeEditor is a line editor reading in and drawing on screen.
func pipeEditor(t *testing.T, prompt string, in io.ReadCloser, screen io.Writer) *LineEditor {
	t.Helper()
	e, err := newLineEditor(&readline.Config{
		Prompt: prompt, Stdin: in, Stdout: screen, Stderr: screen,
		FuncIsTerminal: func() bool { return true },
		FuncMakeRaw:    func() error { return nil },
		FuncExitRaw:    func() error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// gatedScreen is a screen whose first write of a line's end, once armed,
// waits to be let through: the line is answered but its read has not
// returned.
type gatedScreen struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	armed bool
	held  chan struct{} // closed as the held write arrives
	let   chan struct{} // closed to let it through
}

func (s *gatedScreen) Write(p []byte) (int, error) {
	s.mu.Lock()
	hold := s.armed && bytes.Contains(p, []byte("\n"))
	if hold {
		s.armed = false
	}
	s.mu.Unlock()
	if hold {
		close(s.held)
		<-s.let
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *gatedScreen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// TestRepromptAnsweredWhileWaitingIsNotRedrawn: a redraw that waited for
// a read and sees it waiting just as the question's answer is typed
// draws nothing: the question was answered, and drawing its prompt again
// put it under its own answer (the TestSessionOnATerminalIsTheFrontEnds
// flake: the approval's prompt again after "o"). "newline held": the
// answer's newline is held on its way to the screen while the redraw
// decides, so the line has ended but its read has not returned; "next
// read waiting": the next read (the busy prompt's) already waits, and a
// redraw draws only the prompt it was asked for.
func TestRepromptAnsweredWhileWaitingIsNotRedrawn(t *testing.T) {
	for _, held := range []bool{true, false} {
		name := map[bool]string{true: "newline held", false: "next read waiting"}[held]
		t.Run(name, func(t *testing.T) { answeredWhileWaiting(t, held) })
	}
}

func answeredWhileWaiting(t *testing.T, held bool) {
	inR, inW := io.Pipe()
	screen := &gatedScreen{held: make(chan struct{}), let: make(chan struct{})}
	e := pipeEditor(t, Prompt, inR, screen)
	defer e.Close()
	defer inW.Close() // first: the editor's Close waits for its reader
	b := EditorLines(e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	busy := make(chan error, 1)
	go func() { _, err := b.ReadLine(ctx, "<<busy>>", false); busy <- err }()
	waitFor(t, "the busy read", e.Terminal.IsReading)
	type answer struct {
		line string
		err  error
	}
	answered := make(chan answer, 1)
	go func() { l, err := b.ReadLine(ctx, "<<ask>>", true); answered <- answer{l, err} }()
	waitFor(t, "the question drawn", func() bool { return strings.Contains(screen.String(), "<<ask>>") })
	afterAnswer := func() string {
		s := screen.String()
		if i := strings.Index(s, "o\n"); i >= 0 {
			return s[i:]
		}
		return ""
	}

	// A redraw of the question that waited for the read (as a reprompt
	// that found no read waiting does) sees it waiting, and then the
	// answer comes before it decides.
	e.mu.Lock()
	gen := e.gen
	e.mu.Unlock()
	e.sawReading = func() {
		if held {
			screen.mu.Lock()
			screen.armed = true
			screen.mu.Unlock()
			inW.Write([]byte("o\n"))
			<-screen.held
			return
		}
		close(screen.let)
		inW.Write([]byte("o\n"))
		waitFor(t, "the busy prompt back", func() bool {
			return strings.Contains(afterAnswer(), "<<busy>>") && e.Terminal.IsReading()
		})
	}
	decided := make(chan bool, 1)
	e.decided = func(drew bool) { decided <- drew }
	go e.redrawOnceReading(gen)
	drew := <-decided
	if held {
		close(screen.let)
	}
	if a := <-answered; a.line != "o" || a.err != nil {
		t.Fatalf("the answer: %q %v", a.line, a.err)
	}
	if drew {
		t.Errorf("a redraw decided after its question's answer ended the line drew again")
	}
	// The busy read goes on under its own prompt; the question's is not
	// drawn after its answer.
	waitFor(t, "the busy prompt back", func() bool { return strings.Contains(afterAnswer(), "<<busy>>") })
	if s := afterAnswer(); strings.Contains(s, "<<ask>>") {
		t.Errorf("the question's prompt drawn after its answer: %q", screen.String())
	}
	cancel()
	if err := <-busy; err == nil {
		t.Fatal("the busy read ended without its ctx")
	}
}

// waitFor waits until cond holds (a condition, not a time, is asserted;
// the bound only ends a hung test).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(100 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never came", what)
		}
	}
}
