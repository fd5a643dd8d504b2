package termsession

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/chzyer/readline"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/termtext"
	"demiurge.dev/shared/turnevent"
)

// Chat shows a turn on the operator's terminal: the model's text as it
// streams, tool cards per --tool-display, clarify questions answered
// inline (on a terminal only). The full CLI's in-process chat and every
// session through the host show turns with it.
type Chat struct {
	Out, ErrOut io.Writer
	Display     catalog.DisplayMode
	// Ask reads an answer from the session's input; nil when no one can.
	Ask *LineBroker
	// Interrupt stops the foreground (Ctrl-C at a question).
	Interrupt func()
	// LineBuffered writes the model's text a line at a time: on a terminal
	// the input stays live during a turn (for /stop), and the line editor
	// redraws its prompt line after every write, which would wipe a part
	// of a line. The part of a line streams as the line editor's prompt
	// instead (Lead), so the answer still shows token by token.
	LineBuffered bool
	Lead         func(partial string)

	mu      sync.Mutex
	midLine bool
	pending string
	// shown is what each running call streamed, so that the full
	// display's result does not print it again.
	shown map[string]*frontview.Shown
	// usage counts tokens: the running turn's, and each session's so far.
	usage     turnevent.Usage
	session   string
	bySession map[string]*chatUsage
}

// chatUsage is what the model used in one session of this process.
type chatUsage struct {
	turnevent.Usage
	turns int
}

func printable(s string, limit int) string { return termtext.Printable(s, limit) }

// Show shows one event of the turn.
func (f *Chat) Show(ev turnevent.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch ev.Type {
	case turnevent.EventTextDelta:
		f.text(printable(ev.Text, 1<<20))
	case turnevent.EventToolCall:
		if f.Display == catalog.DisplayQuiet {
			return
		}
		f.endLine()
		fmt.Fprintf(f.Out, "── %s\n", printable(strings.TrimRight(ev.Card, "\n"), 2000))
	case turnevent.EventApproval:
		if ev.Decision != "auto" && f.Display != catalog.DisplayQuiet {
			fmt.Fprintf(f.Out, "   %s\n", printable(ev.Decision, 40))
		}
	case turnevent.EventToolResult:
		if f.Display == catalog.DisplayQuiet {
			return
		}
		mark := frontview.ResultMark(ev)
		body := strings.TrimRight(ev.Result, "\n")
		if f.Display != catalog.DisplayFull {
			body, _, _ = strings.Cut(body, "\n")
			body = printable(body, 160)
		} else {
			if sh := f.shown[ev.CallID]; sh != nil {
				body = sh.LeaveOut(body)
			}
			body = printable(body, 8000)
		}
		delete(f.shown, ev.CallID)
		fmt.Fprintf(f.Out, "   %s %s\n", mark, body)
	case turnevent.EventUsage:
		if ev.Usage != nil {
			addUsage(&f.usage, *ev.Usage)
		}
		if f.Display == catalog.DisplayFull && ev.Usage != nil {
			f.endLine()
			fmt.Fprintf(f.ErrOut, "   tokens: %d in, %d out\n", ev.Usage.InputTokens, ev.Usage.OutputTokens)
		}
	case turnevent.EventNotice:
		f.endLine()
		fmt.Fprintf(f.ErrOut, "demiurge: %s\n", printable(ev.Text, 2000))
	case turnevent.EventRetry:
		f.endLine()
		fmt.Fprintln(f.ErrOut, frontview.RetryLine(ev))
	case turnevent.EventTurnEnd:
		f.endLine()
		if ev.Error != "" {
			fmt.Fprintf(f.ErrOut, "demiurge: the turn %s: %s\n", printable(ev.Status, 20), printable(ev.Error, 2000))
		}
		f.endTurnUsage()
	}
}

func addUsage(to *turnevent.Usage, u turnevent.Usage) {
	to.InputTokens += u.InputTokens
	to.OutputTokens += u.OutputTokens
	to.CachedInputTokens += u.CachedInputTokens
	to.CacheWriteTokens += u.CacheWriteTokens
}

// endTurnUsage adds the turn's tokens to its session's and shows both on
// one status line.
func (f *Chat) endTurnUsage() {
	if f.bySession == nil {
		f.bySession = map[string]*chatUsage{}
	}
	su := f.bySession[f.session]
	if su == nil {
		su = &chatUsage{}
		f.bySession[f.session] = su
	}
	addUsage(&su.Usage, f.usage)
	su.turns++
	if f.usage != (turnevent.Usage{}) {
		fmt.Fprintf(f.ErrOut, "tokens: %s this turn · %s this session\n", usageText(f.usage), usageText(su.Usage))
	}
	f.usage = turnevent.Usage{}
}

// usageText is "1,234 in, 56 out" with cache reads and writes when any.
func usageText(u turnevent.Usage) string {
	s := fmt.Sprintf("%s in, %s out", thousands(u.InputTokens), thousands(u.OutputTokens))
	if u.CachedInputTokens > 0 || u.CacheWriteTokens > 0 {
		s += fmt.Sprintf(" (cache: %s read, %s written)", thousands(u.CachedInputTokens), thousands(u.CacheWriteTokens))
	}
	return s
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// UsageReport is /usage: the session's tokens so far.
func (f *Chat) UsageReport(session string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	su := f.bySession[session]
	if su == nil || su.turns == 0 {
		return "no model turns in this session yet"
	}
	return fmt.Sprintf("this session: %s over %d turn(s)", usageText(su.Usage), su.turns)
}

// Opened names the session whose turns follow (for the usage count).
func (f *Chat) Opened(session string) {
	f.mu.Lock()
	f.session = session
	f.mu.Unlock()
}

// ShowChild shows a child agent's tool cards, results and approval
// verdicts indented under the parent's call and marked with the child;
// its text is not shown (its answer comes back as the parent's result).
func (f *Chat) ShowChild(ev turnevent.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Display == catalog.DisplayQuiet {
		return
	}
	who := "[child " + printable(ev.Agent, 40) + "]"
	switch ev.Type {
	case turnevent.EventToolCall:
		f.endLine()
		fmt.Fprintf(f.Out, "   %s ── %s\n", who, printable(strings.TrimRight(ev.Card, "\n"), 2000))
	case turnevent.EventApproval:
		if ev.Decision != "auto" {
			fmt.Fprintf(f.Out, "   %s    %s\n", who, printable(ev.Decision, 40))
		}
	case turnevent.EventToolResult:
		body, _, _ := strings.Cut(strings.TrimRight(ev.Result, "\n"), "\n")
		fmt.Fprintf(f.Out, "   %s    %s %s\n", who, frontview.ResultMark(ev), printable(body, 160))
	}
}

// text writes the model's text as it comes (by whole lines when
// LineBuffered).
func (f *Chat) text(text string) {
	if text == "" {
		return
	}
	if !f.LineBuffered {
		io.WriteString(f.Out, text)
		f.midLine = !strings.HasSuffix(text, "\n")
		return
	}
	f.pending += text
	if cut := strings.LastIndexByte(f.pending, '\n') + 1; cut > 0 {
		f.setLead("") // before the whole lines are written, or they would show twice
		io.WriteString(f.Out, f.pending[:cut])
		f.pending = f.pending[cut:]
	}
	f.setLead(f.pending)
}

func (f *Chat) setLead(partial string) {
	if f.Lead != nil {
		f.Lead(partial)
	}
}

// endLine ends the model's text line before something else is shown.
func (f *Chat) endLine() {
	if f.pending != "" {
		f.setLead("")
		io.WriteString(f.Out, f.pending+"\n")
		f.pending = ""
		return
	}
	if f.midLine {
		fmt.Fprintln(f.Out)
		f.midLine = false
	}
}

// Output shows a running call's (redacted) output.
func (f *Chat) Output(callID, stream string, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Display == catalog.DisplayFull {
		if f.shown == nil {
			f.shown = map[string]*frontview.Shown{}
		}
		if f.shown[callID] == nil {
			f.shown[callID] = &frontview.Shown{}
		}
		f.shown[callID].Keep(stream, text)
	}
	f.endLine()
	text = printable(text, 1<<20)
	io.WriteString(f.Out, text)
	f.midLine = text != "" && !strings.HasSuffix(text, "\n")
}

// Progress shows a running call's progress message.
func (f *Chat) Progress(_, progress string, _ float64) {
	if progress == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLine()
	fmt.Fprintf(f.ErrOut, "… %s\n", printable(strings.Join(strings.Fields(progress), " "), 200))
}

// Warn is a notice of the host's, shown apart from the answer.
func (f *Chat) Warn(text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLine()
	fmt.Fprint(f.ErrOut, printable(text, 1<<16))
}

// Clarify asks the model's question inline; a number picks a choice.
// Without a terminal no one can answer, and the model is told so.
func (f *Chat) Clarify(ctx context.Context, question string, choices []string) (string, bool, error) {
	if f.Ask == nil {
		return "", false, nil
	}
	f.mu.Lock()
	f.endLine()
	fmt.Fprintf(f.Out, "\nthe agent asks: %s\n", printable(question, 2000))
	for i, c := range choices {
		fmt.Fprintf(f.Out, "  %d) %s\n", i+1, printable(c, 200))
	}
	f.mu.Unlock()
	p := "answer: "
	if len(choices) > 0 {
		p = fmt.Sprintf("answer (1-%d or text): ", len(choices))
	}
	line, err := f.Ask.ReadLine(ctx, p, true)
	if errors.Is(err, readline.ErrInterrupt) {
		f.Interrupt()
		return "", false, context.Canceled
	}
	if err != nil {
		return "", false, err
	}
	line = strings.TrimSpace(line)
	if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(choices) {
		return choices[n-1], true, nil
	}
	return line, true, nil
}
