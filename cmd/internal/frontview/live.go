package frontview

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"demiurge.dev/host/termtext"
)

// spinnerAfter is how long a call runs before the progress line shows.
const spinnerAfter = 700 * time.Millisecond

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Live shows a foreground call while it runs: its output (already
// redacted by the host) on out as it comes, and, when spin is set
// (stderr is a terminal and not --quiet), a spinner with the latest
// progress message on one stderr line that output never mixes with.
// Without spin, progress messages print as lines. The full CLI and the
// small front end draw with it alike.
type Live struct {
	out, status io.Writer
	spin        bool

	mu       sync.Mutex
	progress string
	drawn    bool
	held     int // approval questions on screen: the spinner keeps off them
	// shown is what streamed, to leave out of the card after.
	shown   Shown
	started time.Time
	stop    chan struct{}
	closed  bool
	done    sync.WaitGroup
}

// NewLive starts showing a call (the spinner, when spin).
func NewLive(out, status io.Writer, spin bool) *Live {
	l := &Live{out: out, status: status, spin: spin, started: time.Now(), stop: make(chan struct{})}
	if spin {
		l.done.Add(1)
		go l.spinner()
	}
	return l
}

// Output shows what the call wrote on stream.
func (l *Live) Output(stream, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	io.WriteString(l.out, termtext.Printable(text, 1<<20))
	l.shown.Keep(stream, text)
}

// KeepShown records text as shown on stream without printing it.
func (l *Live) KeepShown(stream, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shown.Keep(stream, text)
}

// NotShownAgain is a card's body with what already streamed left out
// (Shown.LeaveOut).
func (l *Live) NotShownAgain(body string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shown.LeaveOut(body)
}

// Progress shows the call's latest progress message (fraction in (0,1]
// as a percentage).
func (l *Live) Progress(progress string, fraction float64) {
	if progress == "" {
		return
	}
	msg := termtext.Printable(strings.Join(strings.Fields(progress), " "), 200)
	if fraction > 0 && fraction <= 1 {
		msg = fmt.Sprintf("%3.0f%% %s", fraction*100, msg)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.spin {
		fmt.Fprintf(l.out, "… %s\n", msg)
		return
	}
	l.progress = msg
}

func (l *Live) spinner() {
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
func (l *Live) clearLocked() {
	if l.drawn {
		io.WriteString(l.status, "\r\033[K")
		l.drawn = false
	}
}

// Hold wipes the spinner and keeps it off the screen until Release, so
// a question asked meanwhile stays visible until it is answered.
func (l *Live) Hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	l.held++
}

// Release ends a Hold.
func (l *Live) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held--
}

// Close stops the spinner and wipes its line; safe to call twice.
func (l *Live) Close() {
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

// maxShownKept bounds what a Shown keeps of the streamed output.
const maxShownKept = 1 << 20

// Shown is what one call streamed to the terminal as it came, per
// stream, so that its card or result does not print it a second time.
// Past maxShownKept it keeps nothing (then the card shows it all).
type Shown struct {
	streams map[string]*strings.Builder
	over    bool
}

// Keep records text as shown on stream.
func (s *Shown) Keep(stream, text string) {
	if s.over {
		return
	}
	if s.streams == nil {
		s.streams = map[string]*strings.Builder{}
	}
	b := s.streams[stream]
	if b == nil {
		b = &strings.Builder{}
		s.streams[stream] = b
	}
	if b.Len()+len(text) > maxShownKept {
		s.over, s.streams = true, nil
		return
	}
	b.WriteString(text)
}

// LeaveOut is body with each stream's output that was already shown
// replaced by a note, where body holds it verbatim once; anything else
// is left as it is.
func (s *Shown) LeaveOut(body string) string {
	for _, b := range s.streams {
		text := strings.TrimRight(b.String(), "\n")
		if strings.TrimSpace(text) != "" && strings.Count(body, text) == 1 {
			body = strings.Replace(body, text, "(shown above)", 1)
		}
	}
	return body
}
