package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
)

// spinnerAfter is how long a call runs before the progress line shows.
const spinnerAfter = 700 * time.Millisecond

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// liveOutput shows a foreground call while it runs: its output (already
// redacted by dispatch.Turn.OnOutput) on out as it comes, and, when
// spin is set (stderr is a terminal and not --quiet), a spinner with the
// latest progress message on one stderr line that output never mixes
// with. Without spin, progress messages print as lines.
type liveOutput struct {
	out, status io.Writer
	spin        bool

	mu       sync.Mutex
	progress string
	drawn    bool
	held     int // approval questions on screen: the spinner keeps off them
	// shown is what streamed, to leave out of the card after.
	shown   shownOutput
	started time.Time
	stop    chan struct{}
	closed  bool
	done    sync.WaitGroup
}

func newLiveOutput(out, status io.Writer, spin bool) *liveOutput {
	l := &liveOutput{out: out, status: status, spin: spin, started: time.Now(), stop: make(chan struct{})}
	if spin {
		l.done.Add(1)
		go l.spinner()
	}
	return l
}

// attach makes the turn's calls report to l.
func (l *liveOutput) attach(t *dispatch.Turn) {
	t.OnOutput = l.output
	t.OnEvent = l.event
}

func (l *liveOutput) output(_, stream string, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	io.WriteString(l.out, printable(text, 1<<20))
	l.keepShown(stream, text)
}

func (l *liveOutput) keepShown(stream, text string) { l.shown.keep(stream, text) }

// notShownAgain is a card's body with what already streamed left out
// (shownOutput.leaveOut).
func (l *liveOutput) notShownAgain(body string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shown.leaveOut(body)
}

func (l *liveOutput) event(_ string, ev dispatch.Event) {
	if ev.Progress == "" {
		return
	}
	msg := printable(strings.Join(strings.Fields(ev.Progress), " "), 200)
	if ev.Fraction > 0 && ev.Fraction <= 1 {
		msg = fmt.Sprintf("%3.0f%% %s", ev.Fraction*100, msg)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.spin {
		fmt.Fprintf(l.out, "… %s\n", msg)
		return
	}
	l.progress = msg
}

func (l *liveOutput) spinner() {
	defer l.done.Done()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		if el := time.Since(l.started); el >= spinnerAfter && l.held == 0 {
			fmt.Fprintf(l.status, "\r\033[K%s %s %s", spinnerFrames[i%len(spinnerFrames)], el.Round(100*time.Millisecond), l.progress)
			l.drawn = true
		}
		l.mu.Unlock()
	}
}

// clearLocked wipes the spinner line before other text is written.
func (l *liveOutput) clearLocked() {
	if l.drawn {
		io.WriteString(l.status, "\r\033[K")
		l.drawn = false
	}
}

// hold wipes the spinner and keeps it off the screen until release, so
// a question asked meanwhile stays visible until it is answered.
func (l *liveOutput) hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	l.held++
}

func (l *liveOutput) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held--
}

// heldApprover asks through its provider with the live line held, so the
// spinner never draws over the approval question.
type heldApprover struct {
	approval.Provider
	live func() *liveOutput // set once the call's live output exists
}

func (h heldApprover) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	if l := h.live(); l != nil {
		l.hold()
		defer l.release()
	}
	return h.Provider.Ask(ctx, req)
}

// close stops the spinner and wipes its line; safe to call twice.
func (l *liveOutput) close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	close(l.stop)
	l.mu.Unlock()
	l.done.Wait()
	l.mu.Lock()
	l.clearLocked()
	l.mu.Unlock()
}
