package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/turn"
)

// headless is the front end of `demiurge run`: no one can answer, so
// approvals deny (unless an --approve rule decided first) and clarify
// says no one can answer. With --json every event is one JSON line on
// stdout; else the model's text goes to stdout and tool cards and notices
// to stderr.
type headless struct {
	out, errw io.Writer
	json      bool
	display   catalog.DisplayMode

	mu sync.Mutex
	// midLine is true while the text on out does not end with a newline.
	midLine bool
	enc     *json.Encoder
}

func newHeadless(out, errw io.Writer, asJSON bool, display catalog.DisplayMode) *headless {
	h := &headless{out: out, errw: errw, json: asJSON, display: display}
	h.enc = json.NewEncoder(out)
	h.enc.SetEscapeHTML(false)
	return h
}

func (h *headless) Approver() approval.Provider { return approval.DenyAll{} }

func (h *headless) Clarify(context.Context, string, []string) (string, bool, error) {
	return "", false, nil
}

func (h *headless) Show(ev turn.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.json {
		_ = h.enc.Encode(ev)
		return
	}
	switch ev.Type {
	case turn.EventTextDelta:
		fmt.Fprint(h.out, printable(ev.Text, 1<<20)) // the model's text drives no terminal
		h.midLine = !strings.HasSuffix(ev.Text, "\n")
	case turn.EventToolCall:
		if h.display != catalog.DisplayQuiet {
			h.endLine()
			fmt.Fprintf(h.errw, "→ %s\n", printable(ev.Card, 200))
		}
	case turn.EventApproval:
		if ev.Decision != "auto" && h.display != catalog.DisplayQuiet {
			fmt.Fprintf(h.errw, "  %s: %s\n", ev.Decision, printable(ev.Text, 200))
		}
	case turn.EventToolResult:
		if h.display == catalog.DisplayQuiet {
			return
		}
		mark := resultMark(ev)
		body := strings.TrimRight(ev.Result, "\n")
		if h.display != catalog.DisplayFull {
			body, _, _ = strings.Cut(body, "\n")
			body = printable(body, 160)
		} else {
			body = printable(body, 1<<20)
		}
		fmt.Fprintf(h.errw, "  %s %s\n", mark, body)
	case turn.EventNotice:
		h.endLine()
		fmt.Fprintf(h.errw, "demiurge: %s\n", printable(ev.Text, 1<<16))
	case turn.EventRetry:
		h.endLine()
		fmt.Fprintln(h.errw, retryLine(ev))
	case turn.EventTurnEnd:
		h.endLine()
	}
}

// ShowChild shows a child agent's event: with --json as one more line
// (tagged agent and parent_agent); else its tool cards and results on
// stderr, marked with the child, and never its text on stdout, which is
// the parent's answer.
func (h *headless) ShowChild(ev turn.Event) {
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
	case turn.EventToolCall:
		h.endLine()
		fmt.Fprintf(h.errw, "  [child %s] → %s\n", ev.Agent, printable(ev.Card, 200))
	case turn.EventToolResult:
		body, _, _ := strings.Cut(strings.TrimRight(ev.Result, "\n"), "\n")
		fmt.Fprintf(h.errw, "  [child %s]   %s %s\n", ev.Agent, resultMark(ev), printable(body, 160))
	}
}

// endLine ends the model's text line before something else is printed.
func (h *headless) endLine() {
	if h.midLine {
		fmt.Fprintln(h.out)
		h.midLine = false
	}
}
