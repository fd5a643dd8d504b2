package frontview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/termtext"
	"demiurge.dev/shared/turnevent"
)

// Headless prints `demiurge run`'s events, in process and through the
// host alike: with --json every event is one JSON line on stdout; else
// the model's text goes to stdout and tool cards and notices to stderr.
type Headless struct {
	out, errw io.Writer
	json      bool
	display   catalog.DisplayMode

	mu sync.Mutex
	// midLine is true while the text on out does not end with a newline.
	midLine bool
	enc     *json.Encoder
}

// NewHeadless prints to out and errw.
func NewHeadless(out, errw io.Writer, asJSON bool, display catalog.DisplayMode) *Headless {
	h := &Headless{out: out, errw: errw, json: asJSON, display: display}
	h.enc = json.NewEncoder(out)
	h.enc.SetEscapeHTML(false)
	return h
}

// JSON says whether events print as JSON lines.
func (h *Headless) JSON() bool { return h.json }

// Show prints one event of the front end's own session.
func (h *Headless) Show(ev turnevent.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.json {
		_ = h.enc.Encode(ev)
		return
	}
	switch ev.Type {
	case turnevent.EventTextDelta:
		fmt.Fprint(h.out, termtext.Printable(ev.Text, 1<<20)) // the model's text drives no terminal
		h.midLine = !strings.HasSuffix(ev.Text, "\n")
	case turnevent.EventToolCall:
		if h.display != catalog.DisplayQuiet {
			h.endLine()
			fmt.Fprintf(h.errw, "→ %s\n", termtext.Printable(ev.Card, 200))
		}
	case turnevent.EventApproval:
		if ev.Decision != "auto" && h.display != catalog.DisplayQuiet {
			fmt.Fprintf(h.errw, "  %s: %s\n", ev.Decision, termtext.Printable(ev.Text, 200))
		}
	case turnevent.EventToolResult:
		if h.display == catalog.DisplayQuiet {
			return
		}
		mark := ResultMark(ev)
		body := strings.TrimRight(ev.Result, "\n")
		if h.display != catalog.DisplayFull {
			body, _, _ = strings.Cut(body, "\n")
			body = termtext.Printable(body, 160)
		} else {
			body = termtext.Printable(body, 1<<20)
		}
		fmt.Fprintf(h.errw, "  %s %s\n", mark, body)
	case turnevent.EventNotice:
		h.endLine()
		fmt.Fprintf(h.errw, "demiurge: %s\n", termtext.Printable(ev.Text, 1<<16))
	case turnevent.EventRetry:
		h.endLine()
		fmt.Fprintln(h.errw, RetryLine(ev))
	case turnevent.EventTurnEnd:
		h.endLine()
	}
}

// ShowChild shows a child agent's event: with --json as one more line
// (tagged agent and parent_agent); else its tool cards and results on
// stderr, marked with the child, and never its text on stdout, which is
// the parent's answer.
func (h *Headless) ShowChild(ev turnevent.Event) {
	if h.json {
		h.Show(ev)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.display == catalog.DisplayQuiet {
		return
	}
	switch ev.Type {
	case turnevent.EventToolCall:
		h.endLine()
		fmt.Fprintf(h.errw, "  [child %s] → %s\n", ev.Agent, termtext.Printable(ev.Card, 200))
	case turnevent.EventToolResult:
		body, _, _ := strings.Cut(strings.TrimRight(ev.Result, "\n"), "\n")
		fmt.Fprintf(h.errw, "  [child %s]   %s %s\n", ev.Agent, ResultMark(ev), termtext.Printable(body, 160))
	}
}

// ShowResult prints a result event (`run --json` only).
func (h *Headless) ShowResult(ev turnevent.Event) {
	if !h.json {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = h.enc.Encode(ev)
}

// Warn prints the host's warning on stderr, the model's line ended first.
func (h *Headless) Warn(text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endLine()
	fmt.Fprint(h.errw, text)
}

// endLine ends the model's text line before something else is printed.
func (h *Headless) endLine() {
	if h.midLine {
		fmt.Fprintln(h.out)
		h.midLine = false
	}
}

// RetryLine is plain `run`'s line for a retry event.
func RetryLine(ev turnevent.Event) string {
	return fmt.Sprintf("demiurge: retrying the model step (try %d of %d in %s): %s",
		ev.Try, ev.Of, (time.Duration(ev.WaitMS) * time.Millisecond).Round(100*time.Millisecond), termtext.Printable(ev.Text, 300))
}

// ResultMark is a tool result's mark on a card: ✓ only for a call that
// succeeded and, when it ran a command, whose command exited 0.
func ResultMark(ev turnevent.Event) string {
	switch {
	case ev.ExitCode != nil && *ev.ExitCode != 0:
		return fmt.Sprintf("✗ exit %d:", *ev.ExitCode)
	case ev.IsError:
		return "✗"
	}
	return "✓"
}
