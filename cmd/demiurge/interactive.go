package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chzyer/readline"
	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/termtext"
	"demiurge.dev/host/toolhost"
)

const replHelp = `commands:
  /tools [quiet|summary|full]   the tools this turn resolves to
  /call NAME [ARGS_JSON]        call a tool through the full call path
  /approvals [revoke N|all]     live session approvals: tool, what each covers, expiry
  /tasks [list|show|logs|wait|cancel] [ID]   this session's background tasks
  /subagents [ID] [--json]   this session's child agents; with ID, its requested controls and resolved pipeline
  /session [list|new|resume ID] this session; start a new one or go back to one
  /usage                        tokens the model used in this session (each turn ends with a line)
  /stop                         stop the running turn or call (Ctrl-C does the same)
  /help                         this text
  /quit                         leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)
`

// prompt is the session's prompt; busyPrompt shows while a turn or call
// runs in the foreground (the input stays live for /stop).
const (
	prompt     = termsession.Prompt
	busyPrompt = termsession.BusyPrompt
)

// The session's terminal side is termsession's, shared with the small
// front end's session through the host.
type (
	lineBroker = termsession.LineBroker
	history    = termsession.History
	lineEditor = termsession.LineEditor
)

// interactive is the session with no command: it reads slash commands
// (and, with a model, chat) from the operator's terminal with line
// editing, or from a pipe, where approvals deny.
func interactive(c *cli.Context) error {
	if c.NArg() > 0 {
		name := c.Args().First()
		return usagef("unknown command %q%s", name, didYouMeanSuffix(name, commandNames(c.App.Commands)))
	}
	state, err := stateDir(c)
	if err != nil {
		return err
	}
	if hostEnabled() {
		return interactiveViaHost(c, state, "")
	}
	r := &repl{c: c, out: c.App.Writer, errOut: os.Stderr}
	var approver approval.Provider = approval.DenyAll{}
	if operatorCanAnswer() {
		rl, hist, err := termsession.OpenLineEditor(plugins.OperatorStdin(), state, termsession.Completer{Tools: r.toolNames})
		if err != nil {
			return err
		}
		defer rl.Close()
		r.tty, r.hist = true, hist
		r.out, r.errOut = rl.Stdout(), rl.Stderr()
		r.lines = termsession.EditorLines(rl.Instance)
		// A /call's spinner is held while its question is asked.
		approver = heldApprover{Provider: &approval.Terminal{Out: r.errOut, Lines: r.answer}, live: r.liveCall}
	} else {
		r.lines = termsession.PipeLines(plugins.OperatorStdin(), r.out)
	}
	h, err := openHost(c, approver)
	if err != nil {
		return err
	}
	defer h.Close()
	r.h = h
	if r.chat, err = openChat(c, r, approver); err != nil {
		return err
	}
	if r.chat != nil {
		defer r.chat.close()
	}
	stop := r.catchInterrupts()
	defer stop()
	err = r.loop()
	noteTasksOnExit(r.out, h)
	return err
}

type repl struct {
	c      *cli.Context
	h      *toolhost.Host
	lines  *lineBroker
	out    io.Writer
	errOut io.Writer
	tty    bool
	hist   *history
	// chat is the model's side; nil when no model is configured.
	chat *chat

	mu sync.Mutex
	// stopFG cancels the foreground turn or call, saying who stopped it;
	// nil when none runs.
	stopFG func(why string)
	// interrupts counts Ctrl-C at an empty prompt; two leave.
	interrupts int
	// queued are the lines typed while the foreground ran, to run after
	// it in order; stopping the foreground drops them.
	queued    []string
	leave     chan struct{}
	leaveOnce sync.Once
	// live is the running /call's output and spinner, nil when none.
	live *liveOutput
	// remote is the session through the host (interactive_remote.go);
	// nil in process.
	remote *hostSession
	// lostHost: the host went away; the session ends non-zero.
	lostHost atomic.Bool
}

func (r *repl) liveCall() *liveOutput {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live
}

func (r *repl) loop() error {
	if r.leave == nil {
		r.leave = make(chan struct{})
	}
	if r.remote != nil {
		r.remoteBanner()
	} else {
		fmt.Fprintf(r.out, "demiurge: workspace %s, core %s. Type /help for commands.\n", r.h.Workspace.Root, r.h.Core.File)
	}
	if r.chat != nil {
		fmt.Fprintf(r.out, "chatting with %s; type a message, /stop stops a turn.\n", r.chat.model.Name())
	}
	idle, cancelIdle := context.WithCancel(context.Background())
	defer cancelIdle()
	go func() { <-r.leave; cancelIdle() }()
	for {
		if line, ok := r.nextQueued(); ok {
			if quit := r.command(line); quit {
				return nil
			}
			continue
		}
		line, err := r.lines.ReadLine(idle, prompt, false)
		switch {
		case idle.Err() != nil:
			fmt.Fprintln(r.out)
			return nil
		case errors.Is(err, readline.ErrInterrupt):
			if line == "" && r.interruptedIdle() {
				return nil
			}
			continue
		case errors.Is(err, io.EOF):
			if line = strings.TrimSpace(line); line != "" {
				r.command(line)
			}
			fmt.Fprintln(r.out)
			return nil
		case err != nil:
			return err
		}
		r.mu.Lock()
		r.interrupts = 0
		r.mu.Unlock()
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		r.remember(line)
		if quit := r.command(line); quit {
			return nil
		}
	}
}

// interruptedIdle counts a Ctrl-C with nothing running and reports
// whether it was the second in a row.
func (r *repl) interruptedIdle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.interrupts++
	if r.interrupts >= 2 {
		return true
	}
	fmt.Fprintln(r.errOut, "(Ctrl-C again to leave, or /quit)")
	return false
}

// catchInterrupts turns SIGINT into "stop the foreground work", or, with
// nothing running, into the count that leaves on the second. With line
// editing the key arrives as ErrInterrupt instead while a prompt reads.
func (r *repl) catchInterrupts() (stop func()) {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sig:
				if !r.stopForeground("interrupted") && r.interruptedIdle() {
					r.leaveOnce.Do(func() { close(r.leave) })
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(sig); close(done) }
}

// stopForeground cancels the running turn or call, if any.
func (r *repl) stopForeground(why string) bool {
	r.mu.Lock()
	stop := r.stopFG
	r.mu.Unlock()
	if stop == nil {
		return false
	}
	fmt.Fprintf(r.errOut, "%s: stopping the foreground turn (background tasks go on)\n", why)
	stop(why)
	r.mu.Lock()
	dropped := len(r.queued)
	r.queued = nil
	r.mu.Unlock()
	if dropped > 0 {
		fmt.Fprintf(r.errOut, "%d queued line(s) not run (the up arrow recalls them)\n", dropped)
	}
	return true
}

// queue keeps a line typed while the foreground runs, to run after it:
// one typed as an answer appears, before its turn has quite ended, is
// the operator's next message, not a mistake to refuse.
func (r *repl) queue(line string) {
	r.remember(line)
	r.mu.Lock()
	r.queued = append(r.queued, line)
	r.mu.Unlock()
	fmt.Fprintln(r.errOut, "queued: it runs when the running turn ends (/stop or Ctrl-C stops that turn)")
}

// remember keeps a typed line in the history, when there is one.
func (r *repl) remember(line string) {
	if r.hist == nil {
		return
	}
	if err := r.hist.Add(line); err != nil {
		fmt.Fprintf(r.errOut, "warning: history not saved: %v\n", err)
	}
}

func (r *repl) nextQueued() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queued) == 0 {
		return "", false
	}
	line := r.queued[0]
	r.queued = r.queued[1:]
	return line, true
}

// foreground runs fn as the one foreground job. On a terminal the input
// stays live meanwhile: /stop or Ctrl-C cancels fn's context, and an
// approval or question asked by fn takes the next line. From a pipe the
// lines wait their turn, as a script expects.
func (r *repl) foreground(fn func(ctx context.Context)) (quit bool) {
	ctx, cancel := context.WithCancelCause(r.c.Context)
	defer cancel(nil)
	r.mu.Lock()
	r.stopFG = func(why string) { cancel(stoppedBy(why)) }
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.stopFG = nil
		r.mu.Unlock()
	}()
	done := make(chan struct{})
	go func() { defer close(done); fn(ctx) }()
	if !r.tty {
		<-done
		return false
	}
	busy, stopBusy := context.WithCancel(context.Background())
	defer stopBusy()
	go func() { <-done; stopBusy() }()
	for {
		line, err := r.lines.ReadLine(busy, busyPrompt, false)
		// busy is looked at once: were each case to look again, it could
		// end between two looks, and a line that came would be dropped
		// as if none had.
		ended := busy.Err() != nil
		switch {
		case err == nil && ended:
			// The line came just as the foreground ended (the broker's
			// select may take either): it is the next command, never lost.
			if line = strings.TrimSpace(line); line != "" && line != "/stop" {
				r.remember(line)
				r.mu.Lock()
				r.queued = append(r.queued, line)
				r.mu.Unlock()
			}
			return false
		case ended:
			return false
		case errors.Is(err, readline.ErrInterrupt):
			r.stopForeground("^C")
		case errors.Is(err, io.EOF):
			r.stopForeground("input closed")
			<-done
			return true
		case err != nil:
			return false
		case strings.TrimSpace(line) == "/stop":
			r.stopForeground("/stop")
		case strings.TrimSpace(line) != "":
			r.queue(strings.TrimSpace(line))
		}
	}
}

// answer reads an approval answer through the session's input; Ctrl-C
// at the prompt denies and stops the foreground turn.
func (r *repl) answer(ctx context.Context, p string) (string, error) {
	line, err := r.lines.ReadLine(ctx, p, true)
	if errors.Is(err, readline.ErrInterrupt) {
		r.stopForeground("^C")
		return "", context.Canceled
	}
	return line, err
}

// command runs one line; it reports whether the session should end.
func (r *repl) command(line string) bool {
	if r.remote != nil {
		return r.remoteCommand(line)
	}
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "/quit", "/exit":
		return true
	case "/help":
		fmt.Fprint(r.out, replHelp)
	case "/tools":
		r.tools(rest)
	case "/call":
		return r.foreground(func(ctx context.Context) { r.call(ctx, rest) })
	case "/approvals":
		r.approvals(rest)
	case "/tasks":
		return r.foreground(func(ctx context.Context) { r.tasks(ctx, rest) })
	case "/subagents":
		r.subagents(rest)
	case "/session":
		r.session(rest)
	case "/stop":
		fmt.Fprintln(r.out, "nothing is running in the foreground")
	case "/usage":
		if r.chat == nil {
			fmt.Fprintln(r.out, "no model is configured, so no tokens are used")
		} else {
			fmt.Fprintln(r.out, r.chat.fe.usageReport(r.h.Session().ID()))
		}
	default:
		switch {
		case strings.HasPrefix(line, "/"):
			fmt.Fprintf(r.out, "unknown command %s%s; /help lists the commands\n", name, didYouMeanSuffix(name, slashCommands))
		case r.chat != nil:
			return r.foreground(func(ctx context.Context) { r.chat.run(ctx, line) })
		default:
			fmt.Fprintln(r.out, noModelHelp)
		}
	}
	return false
}

// slashCommands are the session's commands, for "did you mean".
var slashCommands = []string{"/tools", "/call", "/approvals", "/tasks", "/session", "/usage", "/stop", "/help", "/quit", "/exit"}

// noModelHelp answers chat typed into a session without a model.
const noModelHelp = `no model is configured, so this is a tool session: /call NAME {json} calls a tool.
To chat, configure a model: a model: block in agent.yaml (provider, name, api_key_env)
or --model provider:name, with the provider's key in the environment (e.g. ANTHROPIC_API_KEY).`

// toolNames are the names /call completes.
func (r *repl) toolNames() []string {
	r.mu.Lock()
	remote := r.remote
	r.mu.Unlock()
	if remote != nil {
		return remote.toolNames(r.c)
	}
	if r.h == nil {
		return nil
	}
	cat, err := r.h.Catalog(r.c.Context)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range cat.Entries() {
		names = append(names, e.Spec.Name)
	}
	return names
}

func (r *repl) tools(arg string) {
	if arg == "" {
		arg = r.c.String("tool-display")
	}
	mode, err := catalog.ParseDisplayMode(arg)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	cat, err := r.h.Catalog(r.c.Context)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	for _, w := range r.h.Warnings() {
		fmt.Fprintf(r.out, "warning: %s\n", w)
	}
	fmt.Fprint(r.out, cat.Display(mode))
}

func (r *repl) call(ctx context.Context, arg string) {
	name, args, _ := strings.Cut(arg, " ")
	if name == "" {
		fmt.Fprintln(r.out, "usage: /call NAME [ARGS_JSON]")
		return
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	turn, err := r.h.NewToolTurn(ctx, name)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	turn.Deliver = func(_ context.Context, tool, text string) error {
		_, err := fmt.Fprintf(r.out, "[%s] %s\n", tool, printable(text, 4000))
		return err
	}
	live := newLiveOutput(r.out, r.errOut, r.tty && !r.c.Bool("quiet"))
	defer live.close()
	live.attach(turn)
	r.mu.Lock()
	r.live = live
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.live = nil
		r.mu.Unlock()
	}()
	out := turn.Call(ctx, dispatch.ToolCall{ID: fmt.Sprintf("repl_%d", time.Now().UnixNano()), Name: name, Args: []byte(args)})
	live.close()
	if out.Status == dispatch.StatusUnknownTool {
		// Why the tool is missing (an MCP server not connected, a toolset
		// left out) is what the catalog found; the call resolved only the
		// servers that could offer the name, so these are about it.
		for _, w := range r.h.Warnings() {
			fmt.Fprintf(r.out, "warning: %s\n", printable(w, 2000))
		}
	}
	status := ""
	switch {
	case ctx.Err() != nil:
		status = " [stopped]"
	case !out.OK():
		status = fmt.Sprintf(" [%s]", out.Status)
	}
	// What streamed while the call ran is not printed again in its card.
	body := live.notShownAgain(strings.TrimRight(out.Views.Card.Body, "\n"))
	fmt.Fprintf(r.out, "── %s%s\n%s\n", printable(out.Views.Card.Title, 2000), status, printable(body, 1<<20))
}

// printable is termtext.Printable: tool-supplied text never steers the
// operator's terminal, in any front end.
func printable(s string, limit int) string { return termtext.Printable(s, limit) }
