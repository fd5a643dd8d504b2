package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/chzyer/readline"
	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// chat is the model side of the interactive session: a turn loop over
// the session in use, made again when /session switches to another.
type chat struct {
	r *repl
	// model is the session's opening model (flags, else agent.yaml's); a
	// resumed session talks to the model it remembers instead (modelFor).
	model providers.Provider
	cfg   providers.Config
	fe    *chatFrontEnd

	mu        sync.Mutex
	loop      *turn.Loop
	loopModel providers.Provider
	session   string
	stopTasks func()
}

// openChat makes the chat when a model is configured; nil without one.
func openChat(c *cli.Context, r *repl, approver approval.Provider) (*chat, error) {
	if _, ok, err := modelConfig(c, r.h.Core.Model); err != nil || !ok {
		return nil, err
	}
	model, cfg, err := openModel(c, r.h.Core.Model)
	if err != nil {
		return nil, err
	}
	display, err := catalog.ParseDisplayMode(c.String("tool-display"))
	if err != nil {
		return nil, usagef("--tool-display: %v", err)
	}
	fe := &chatFrontEnd{out: r.out, errOut: r.errOut, display: display, approver: approver, lineBuffered: r.tty}
	if r.tty {
		fe.ask = r.lines
		fe.interrupt = func() { r.stopForeground("^C") }
		fe.lead = r.lines.SetLead
	}
	return &chat{r: r, model: model, cfg: cfg, fe: fe}, nil
}

// loopFor is the loop of the session in use.
func (ch *chat) loopFor() (*turn.Loop, error) {
	h := ch.r.h
	s := h.Session()
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.loop != nil && ch.session == s.ID() {
		return ch.loop, nil
	}
	ch.closeLocked()
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	model, cfg, err := ch.modelFor(s.ID())
	if err != nil {
		return nil, err
	}
	ch.loop = &turn.Loop{Provider: model, Session: liveSource{Session: s, fe: ch.fe}, Store: store,
		MaxSteps: ch.r.c.Int("max-steps"), System: systemPrompt, Instructions: agentInstructions(h),
		MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature, Completions: ch.fe}
	ch.loopModel = model
	installSpawnGate(h, s, func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: model, Session: child, Store: store, System: systemPrompt,
			MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature}, nil
	})
	ch.session = s.ID()
	ch.fe.mu.Lock()
	ch.fe.session = s.ID()
	ch.fe.mu.Unlock()
	rememberModel(ch.r.c.Context, h, s.ID(), cfg) // for a later `sessions resume`
	ch.stopTasks = h.OnTaskComplete(ch.loop.TaskEnded)
	return ch.loop, nil
}

// modelFor is the model session id talks to, as `run --resume` picks it:
// --model when given, else the model the session remembers, else the
// opening model. The key is read from this process's environment, by
// the variable the remembered model names; a key is never remembered.
func (ch *chat) modelFor(id string) (providers.Provider, providers.Config, error) {
	flags := modelFlagsOf(ch.r.c)
	fromCore := ch.r.h.Core.Model
	remembered := sessionModel(ch.r.h, id, fromCore)
	if flags.Model != "" || remembered == fromCore {
		return ch.model, ch.cfg, nil
	}
	cfg, _, err := modelConfigOf(flags, remembered)
	if err != nil {
		return nil, cfg, err
	}
	if reflect.DeepEqual(cfg, ch.cfg) {
		return ch.model, ch.cfg, nil
	}
	model, cfg, err := openModelOf(flags, remembered, os.Getenv)
	if err != nil {
		return nil, cfg, fmt.Errorf("session %s's model %s:%s: %w", id, cfg.Provider, cfg.Name, err)
	}
	return model, cfg, nil
}

// switched makes the loop of the session /session switched to at once,
// saying which model it talks to when that is not the one the chat
// talked to before.
func (ch *chat) switched(before string) {
	loop, err := ch.loopFor()
	if err != nil {
		fmt.Fprintf(ch.r.errOut, "demiurge: %v\n", err)
		return
	}
	if name := loop.Provider.Name(); name != before {
		fmt.Fprintf(ch.r.out, "chatting with %s (the session's model)\n", name)
	}
}

// current is the model of the session in use (the opening one before a
// first turn).
func (ch *chat) current() string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.loopModel != nil {
		return ch.loopModel.Name()
	}
	return ch.model.Name()
}

// run is one chat turn in the foreground.
func (ch *chat) run(ctx context.Context, prompt string) {
	loop, err := ch.loopFor()
	if err != nil {
		fmt.Fprintf(ch.r.errOut, "demiurge: %v\n", err)
		return
	}
	res, err := loop.Run(ctx, prompt, ch.fe)
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		fmt.Fprintf(ch.r.errOut, "demiurge: %v\n", err)
	case res.Status == turn.StatusCancelled:
		fmt.Fprintln(ch.r.errOut, "(turn stopped; the session goes on)")
	}
}

func (ch *chat) close() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.closeLocked()
}

func (ch *chat) closeLocked() {
	if ch.stopTasks != nil {
		ch.stopTasks()
		ch.stopTasks = nil
	}
	if ch.loop != nil {
		ch.loop.Close()
		ch.loop = nil
	}
}

// liveSource is the session as the loop's Source, with every dispatch
// turn's running output shown on the chat's terminal (redacted by
// dispatch.Turn.OnOutput) as it comes.
type liveSource struct {
	*toolhost.Session
	fe *chatFrontEnd
}

func (s liveSource) NewTurn(ctx context.Context) (*dispatch.Turn, error) {
	t, err := s.Session.NewTurn(ctx)
	if err != nil {
		return nil, err
	}
	t.OnOutput = s.fe.output
	t.OnEvent = s.fe.progress
	return t, nil
}

// chatFrontEnd shows a turn on the operator's terminal: the model's text
// as it streams, tool cards per --tool-display, approvals asked inline,
// clarify questions answered inline (on a terminal only).
type chatFrontEnd struct {
	out, errOut io.Writer
	display     catalog.DisplayMode
	approver    approval.Provider
	// ask reads an answer from the session's input; nil when no one can.
	ask       *lineBroker
	interrupt func()
	// lineBuffered writes the model's text a line at a time: on a terminal
	// the input stays live during a turn (for /stop), and the line editor
	// redraws its prompt line after every write, which would wipe a part
	// of a line. The part of a line streams as the line editor's prompt
	// instead (lead), so the answer still shows token by token.
	lineBuffered bool
	lead         func(partial string)

	mu      sync.Mutex
	midLine bool
	pending string
	// shown is what each running call streamed, so that the full
	// display's result does not print it again.
	shown map[string]*frontview.Shown
	// usage counts tokens: the running turn's, and each session's so far.
	usage     providers.Usage
	session   string
	bySession map[string]*chatUsage
}

// chatUsage is what the model used in one session of this process.
type chatUsage struct {
	providers.Usage
	turns int
}

func (f *chatFrontEnd) Approver() approval.Provider { return f.approver }

func (f *chatFrontEnd) Show(ev turn.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch ev.Type {
	case turn.EventTextDelta:
		f.text(printable(ev.Text, 1<<20))
	case turn.EventToolCall:
		if f.display == catalog.DisplayQuiet {
			return
		}
		f.endLine()
		fmt.Fprintf(f.out, "── %s\n", printable(strings.TrimRight(ev.Card, "\n"), 2000))
	case turn.EventApproval:
		if ev.Decision != "auto" && f.display != catalog.DisplayQuiet {
			fmt.Fprintf(f.out, "   %s\n", printable(ev.Decision, 40))
		}
	case turn.EventToolResult:
		if f.display == catalog.DisplayQuiet {
			return
		}
		mark := resultMark(ev)
		body := strings.TrimRight(ev.Result, "\n")
		if f.display != catalog.DisplayFull {
			body, _, _ = strings.Cut(body, "\n")
			body = printable(body, 160)
		} else {
			if sh := f.shown[ev.CallID]; sh != nil {
				body = sh.LeaveOut(body)
			}
			body = printable(body, 8000)
		}
		delete(f.shown, ev.CallID)
		fmt.Fprintf(f.out, "   %s %s\n", mark, body)
	case turn.EventUsage:
		if ev.Usage != nil {
			addUsage(&f.usage, *ev.Usage)
		}
		if f.display == catalog.DisplayFull && ev.Usage != nil {
			f.endLine()
			fmt.Fprintf(f.errOut, "   tokens: %d in, %d out\n", ev.Usage.InputTokens, ev.Usage.OutputTokens)
		}
	case turn.EventNotice:
		f.endLine()
		fmt.Fprintf(f.errOut, "demiurge: %s\n", printable(ev.Text, 2000))
	case turn.EventRetry:
		f.endLine()
		fmt.Fprintln(f.errOut, retryLine(ev))
	case turn.EventTurnEnd:
		f.endLine()
		if ev.Error != "" {
			fmt.Fprintf(f.errOut, "demiurge: the turn %s: %s\n", printable(ev.Status, 20), printable(ev.Error, 2000))
		}
		f.endTurnUsage()
	}
}

func addUsage(to *providers.Usage, u providers.Usage) {
	to.InputTokens += u.InputTokens
	to.OutputTokens += u.OutputTokens
	to.CachedInputTokens += u.CachedInputTokens
	to.CacheWriteTokens += u.CacheWriteTokens
}

// endTurnUsage adds the turn's tokens to its session's and shows both on
// one status line.
func (f *chatFrontEnd) endTurnUsage() {
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
	if f.usage != (providers.Usage{}) {
		fmt.Fprintf(f.errOut, "tokens: %s this turn · %s this session\n", usageText(f.usage), usageText(su.Usage))
	}
	f.usage = providers.Usage{}
}

// usageText is "1,234 in, 56 out" with cache reads and writes when any.
func usageText(u providers.Usage) string {
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

// usageReport is /usage: the session's tokens so far.
func (f *chatFrontEnd) usageReport(session string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	su := f.bySession[session]
	if su == nil || su.turns == 0 {
		return "no model turns in this session yet"
	}
	return fmt.Sprintf("this session: %s over %d turn(s)", usageText(su.Usage), su.turns)
}

// ShowChild shows a child agent's tool cards, results and approval
// verdicts indented under the parent's call and marked with the child;
// its text is not shown (its answer comes back as the parent's result).
func (f *chatFrontEnd) ShowChild(ev turn.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.display == catalog.DisplayQuiet {
		return
	}
	who := "[child " + printable(ev.Agent, 40) + "]"
	switch ev.Type {
	case turn.EventToolCall:
		f.endLine()
		fmt.Fprintf(f.out, "   %s ── %s\n", who, printable(strings.TrimRight(ev.Card, "\n"), 2000))
	case turn.EventApproval:
		if ev.Decision != "auto" {
			fmt.Fprintf(f.out, "   %s    %s\n", who, printable(ev.Decision, 40))
		}
	case turn.EventToolResult:
		body, _, _ := strings.Cut(strings.TrimRight(ev.Result, "\n"), "\n")
		fmt.Fprintf(f.out, "   %s    %s %s\n", who, resultMark(ev), printable(body, 160))
	}
}

// text writes the model's text as it comes (by whole lines when
// lineBuffered).
func (f *chatFrontEnd) text(text string) {
	if text == "" {
		return
	}
	if !f.lineBuffered {
		io.WriteString(f.out, text)
		f.midLine = !strings.HasSuffix(text, "\n")
		return
	}
	f.pending += text
	if cut := strings.LastIndexByte(f.pending, '\n') + 1; cut > 0 {
		f.setLead("") // before the whole lines are written, or they would show twice
		io.WriteString(f.out, f.pending[:cut])
		f.pending = f.pending[cut:]
	}
	f.setLead(f.pending)
}

func (f *chatFrontEnd) setLead(partial string) {
	if f.lead != nil {
		f.lead(partial)
	}
}

// endLine ends the model's text line before something else is shown.
func (f *chatFrontEnd) endLine() {
	if f.pending != "" {
		f.setLead("")
		io.WriteString(f.out, f.pending+"\n")
		f.pending = ""
		return
	}
	if f.midLine {
		fmt.Fprintln(f.out)
		f.midLine = false
	}
}

// output shows a running call's (redacted) output.
func (f *chatFrontEnd) output(callID, stream string, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.display == catalog.DisplayFull {
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
	io.WriteString(f.out, text)
	f.midLine = text != "" && !strings.HasSuffix(text, "\n")
}

func (f *chatFrontEnd) progress(_ string, ev dispatch.Event) {
	if ev.Progress == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLine()
	fmt.Fprintf(f.errOut, "… %s\n", printable(strings.Join(strings.Fields(ev.Progress), " "), 200))
}

// Clarify asks the model's question inline; a number picks a choice.
// Without a terminal no one can answer, and the model is told so.
func (f *chatFrontEnd) Clarify(ctx context.Context, question string, choices []string) (string, bool, error) {
	if f.ask == nil {
		return "", false, nil
	}
	f.mu.Lock()
	f.endLine()
	fmt.Fprintf(f.out, "\nthe agent asks: %s\n", printable(question, 2000))
	for i, c := range choices {
		fmt.Fprintf(f.out, "  %d) %s\n", i+1, printable(c, 200))
	}
	f.mu.Unlock()
	p := "answer: "
	if len(choices) > 0 {
		p = fmt.Sprintf("answer (1-%d or text): ", len(choices))
	}
	line, err := f.ask.ReadLine(ctx, p, true)
	if errors.Is(err, readline.ErrInterrupt) {
		f.interrupt()
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

var _ turn.Source = liveSource{}
